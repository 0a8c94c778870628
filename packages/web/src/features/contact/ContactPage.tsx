import { Alert, Anchor, Button, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { ZContactRequest } from '@sendwell/contracts';
import { IconMailCheck } from '@tabler/icons-react';
import { type FormEvent, useEffect, useState } from 'react';
import { Link } from 'react-router';
import { useUserQuery } from '../../app/session';
import { useZodForm } from '../../app/useZodForm';
import { FormError } from '../../components/FormError';
import { AuthLayout } from '../auth/AuthLayout';
import { useContactUs } from './contact.queries';

/** A message to the operator; open to visitors and signed-in users alike. */
export const ContactPage = () => {
  const user = useUserQuery().data ?? null;
  const contactUs = useContactUs();
  const [sentMessage, setSentMessage] = useState<string | null>(null);
  const form = useZodForm(ZContactRequest, {
    initialValues: { name: '', email: '', subject: '', message: '' },
    refusalStatuses: [429],
    onSubmit: (request, { fail }) =>
      contactUs.mutate(request, {
        onSuccess: ({ message: answer }) => {
          setSentMessage(answer);
          form.setValue('message', '');
        },
        onError: fail,
      }),
  });

  // A signed-in user is asked only what we do not know; a field they already typed in stays theirs.
  const userName = user?.name;
  const userEmail = user?.email;
  const { setValues } = form;
  useEffect(() => {
    if (!userName && !userEmail) return;
    setValues((typed) => ({ ...typed, name: typed.name || userName || '', email: typed.email || userEmail || '' }));
  }, [setValues, userName, userEmail]);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    setSentMessage(null);
    form.onSubmit(event);
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
          <FormError message={form.formError} />
          {/* Every field is required; the asterisk would only add noise and a stray ' *' to the label. */}
          <TextInput label="Name" autoComplete="name" required withAsterisk={false} {...form.inputProps('name')} />
          <TextInput
            label="Email"
            type="email"
            autoComplete="email"
            required
            withAsterisk={false}
            {...form.inputProps('email')}
          />
          <TextInput label="Subject" required withAsterisk={false} {...form.inputProps('subject')} />
          <Textarea label="Message" required withAsterisk={false} rows={6} {...form.inputProps('message')} />
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
