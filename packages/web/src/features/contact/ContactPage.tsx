import { Alert, Anchor, Button, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { ZContactRequest } from '@sendwell/contracts';
import { IconAlertCircle, IconMailCheck } from '@tabler/icons-react';
import { type FormEvent, useEffect, useState } from 'react';
import { Link } from 'react-router';
import { ApiError } from '../../app/api';
import { fieldErrors, showError } from '../../app/errors';
import { firstIssueByField } from '../../app/forms';
import { useUserQuery } from '../../app/session';
import { AuthLayout } from '../auth/AuthLayout';
import { useContactUs } from './contact.queries';

/** A message to the operator; open to visitors and signed-in users alike. */
export const ContactPage = () => {
  const user = useUserQuery().data ?? null;
  const contactUs = useContactUs();
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [subject, setSubject] = useState('');
  const [message, setMessage] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [refusal, setRefusal] = useState<string | null>(null);
  const [sentMessage, setSentMessage] = useState<string | null>(null);

  // A signed-in user is asked only what we do not know; a field they already typed in stays theirs.
  const userName = user?.name;
  const userEmail = user?.email;
  useEffect(() => {
    if (userName) setName((typed) => typed || userName);
    if (userEmail) setEmail((typed) => typed || userEmail);
  }, [userName, userEmail]);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setRefusal(null);
    setSentMessage(null);
    const parsed = ZContactRequest.safeParse({ name, email, subject, message });
    if (!parsed.success) {
      setErrors(firstIssueByField(parsed.error.issues));
      return;
    }
    setErrors({});
    contactUs.mutate(parsed.data, {
      onSuccess: ({ message: answer }) => {
        setSentMessage(answer);
        setMessage('');
      },
      onError: (error) => {
        if (error instanceof ApiError && error.status === 422) setErrors(fieldErrors(error));
        else if (error instanceof ApiError && error.status === 429) setRefusal(error.message);
        else showError(error);
      },
    });
  };

  return (
    <AuthLayout title="Contact us" description="Questions about plans, billing or anything else: we answer by email.">
      <form onSubmit={submit} noValidate>
        <Stack>
          {sentMessage && (
            <Alert color="green" icon={<IconMailCheck size={18} />}>
              {sentMessage}
            </Alert>
          )}
          {refusal && (
            <Alert color="red" icon={<IconAlertCircle size={18} />}>
              {refusal}
            </Alert>
          )}
          {/* Every field is required; the asterisk would only add noise and a stray ' *' to the label. */}
          <TextInput
            label="Name"
            name="name"
            autoComplete="name"
            required
            withAsterisk={false}
            value={name}
            error={errors.name}
            onChange={(event) => setName(event.currentTarget.value)}
          />
          <TextInput
            label="Email"
            type="email"
            name="email"
            autoComplete="email"
            required
            withAsterisk={false}
            value={email}
            error={errors.email}
            onChange={(event) => setEmail(event.currentTarget.value)}
          />
          <TextInput
            label="Subject"
            name="subject"
            required
            withAsterisk={false}
            value={subject}
            error={errors.subject}
            onChange={(event) => setSubject(event.currentTarget.value)}
          />
          <Textarea
            label="Message"
            name="message"
            required
            withAsterisk={false}
            rows={6}
            value={message}
            error={errors.message}
            onChange={(event) => setMessage(event.currentTarget.value)}
          />
          <Button type="submit" fullWidth loading={contactUs.isPending}>
            Send
          </Button>
          <Text size="sm" ta="center">
            {user ? (
              <Anchor component={Link} to="/">
                Back to Sendwell
              </Anchor>
            ) : (
              <Anchor component={Link} to="/login">
                Back to sign in
              </Anchor>
            )}
          </Text>
        </Stack>
      </form>
    </AuthLayout>
  );
};
