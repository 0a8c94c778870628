import { Alert } from '@mantine/core';
import { ZForgotPasswordRequest } from '@sendwell/contracts';
import { IconMailCheck } from '@tabler/icons-react';
import { type FormEvent, useState } from 'react';
import { useAutofocus } from '../../app/forms';
import { useZodForm } from '../../app/useZodForm';
import { FormStack } from '../../components/FormStack';
import { AuthSubmit, BackToSignIn, EmailField } from './AuthFields';
import { AuthLayout } from './AuthLayout';
import { useForgotPassword } from './auth.queries';

export const ForgotPasswordPage = () => {
  const forgotPassword = useForgotPassword();
  const emailRef = useAutofocus<HTMLInputElement>();
  const [sentMessage, setSentMessage] = useState<string | null>(null);
  const form = useZodForm(ZForgotPasswordRequest, {
    initialValues: { email: '' },
    onSubmit: (request, { fail }) =>
      forgotPassword.mutate(request, { onSuccess: ({ message }) => setSentMessage(message), onError: fail }),
  });

  const submit = (event: FormEvent<HTMLFormElement>) => {
    setSentMessage(null);
    form.onSubmit(event);
  };

  return (
    <AuthLayout
      title="Forgot your password?"
      description="Enter the email you sign in with and we will send you a link to choose a new password."
    >
      <FormStack onSubmit={submit}>
        {sentMessage && (
          <Alert color="green" icon={<IconMailCheck size={18} />}>
            {sentMessage}
          </Alert>
        )}
        <EmailField
          ref={emailRef}
          {...form.inputProps('email')}
          // The only field: a refusal that names no field is about it too.
          error={form.errors.email ?? form.formError}
        />
        <AuthSubmit isPending={forgotPassword.isPending} next={<BackToSignIn />}>
          {sentMessage ? 'Send the link again' : 'Send reset link'}
        </AuthSubmit>
      </FormStack>
    </AuthLayout>
  );
};
