import { Alert, Anchor, Textarea } from '@mantine/core';
import { ZContactRequest } from '@sendwell/contracts';
import { IconMailCheck } from '@tabler/icons-react';
import { type FormEvent, useEffect, useState } from 'react';
import { Link } from 'react-router';
import { useUserQuery } from '../../app/session';
import { useZodForm } from '../../app/useZodForm';
import { FormError } from '../../components/FormError';
import { FormStack } from '../../components/FormStack';
import { AuthSubmit, BackToSignIn, EmailField, RequiredTextInput } from '../auth/AuthFields';
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
      <FormStack onSubmit={submit}>
        {sentMessage && (
          <Alert color="green" icon={<IconMailCheck size={18} />}>
            {sentMessage}
          </Alert>
        )}
        <FormError message={form.formError} />
        <RequiredTextInput label="Name" autoComplete="name" {...form.inputProps('name')} />
        <EmailField {...form.inputProps('email')} />
        <RequiredTextInput label="Subject" {...form.inputProps('subject')} />
        <Textarea label="Message" required withAsterisk={false} rows={6} {...form.inputProps('message')} />
        <AuthSubmit
          isPending={contactUs.isPending}
          next={
            user ? (
              <Anchor component={Link} to="/">
                Back to Sendwell
              </Anchor>
            ) : (
              <BackToSignIn />
            )
          }
        >
          Send
        </AuthSubmit>
      </FormStack>
    </AuthLayout>
  );
};
