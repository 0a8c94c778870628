import { Alert, Anchor, Button, Stack, Text, TextInput } from '@mantine/core';
import { ZForgotPasswordRequest } from '@sendwell/contracts';
import { IconMailCheck } from '@tabler/icons-react';
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { ApiError } from '../../app/api';
import { fieldErrors, showError } from '../../app/errors';
import { firstIssueByField, useAutofocus } from '../../app/forms';
import { AuthLayout } from './AuthLayout';
import { useForgotPassword } from './auth.queries';

export const ForgotPasswordPage = () => {
  const forgotPassword = useForgotPassword();
  const emailRef = useAutofocus<HTMLInputElement>();
  const [email, setEmail] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [sentMessage, setSentMessage] = useState<string | null>(null);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setSentMessage(null);
    const parsed = ZForgotPasswordRequest.safeParse({ email });
    if (!parsed.success) {
      setError(firstIssueByField(parsed.error.issues).email);
      return;
    }
    setError(undefined);
    forgotPassword.mutate(parsed.data, {
      onSuccess: ({ message }) => setSentMessage(message),
      onError: (failure) => {
        if (failure instanceof ApiError && failure.status === 422)
          setError(fieldErrors(failure).email ?? failure.message);
        else showError(failure);
      },
    });
  };

  return (
    <AuthLayout
      title="Forgot your password?"
      description="Enter the email you sign in with and we will send you a link to choose a new password."
    >
      <form onSubmit={submit} noValidate>
        <Stack>
          {sentMessage && (
            <Alert color="green" icon={<IconMailCheck size={18} />}>
              {sentMessage}
            </Alert>
          )}
          <TextInput
            ref={emailRef}
            label="Email"
            type="email"
            name="email"
            autoComplete="email"
            required
            withAsterisk={false}
            value={email}
            error={error}
            onChange={(event) => setEmail(event.currentTarget.value)}
          />
          <Button type="submit" fullWidth loading={forgotPassword.isPending}>
            {sentMessage ? 'Send the link again' : 'Send reset link'}
          </Button>
          <Text size="sm" ta="center">
            <Anchor component={Link} to="/login">
              Back to sign in
            </Anchor>
          </Text>
        </Stack>
      </form>
    </AuthLayout>
  );
};
