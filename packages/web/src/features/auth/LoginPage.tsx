import { Alert, Anchor, Button, Group, Stack, Text, TextInput } from '@mantine/core';
import { ZLoginRequest } from '@sendwell/contracts';
import { IconAlertCircle } from '@tabler/icons-react';
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { ApiError } from '../../app/api';
import { fieldErrors, showError } from '../../app/errors';
import { firstIssueByField, useAutofocus } from '../../app/forms';
import { PasswordField } from '../../components/PasswordField';
import { AuthLayout } from './AuthLayout';
import { useLogin } from './auth.queries';

export const LoginPage = () => {
  const login = useLogin();
  const emailRef = useAutofocus<HTMLInputElement>();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [refusal, setRefusal] = useState<string | null>(null);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setRefusal(null);
    const parsed = ZLoginRequest.safeParse({ email, password });
    if (!parsed.success) {
      setErrors(firstIssueByField(parsed.error.issues));
      return;
    }
    setErrors({});
    login.mutate(parsed.data, {
      onError: (error) => {
        if (error instanceof ApiError && error.status === 422) setErrors(fieldErrors(error));
        // Wrong credentials and rate limits belong to this form, not to a dialog over it.
        else if (error instanceof ApiError && (error.status === 401 || error.status === 429)) setRefusal(error.message);
        else showError(error);
      },
    });
  };

  return (
    <AuthLayout title="Sign in" description="Welcome back. Sign in to manage your email.">
      <form onSubmit={submit} noValidate>
        <Stack>
          {refusal && (
            <Alert color="red" icon={<IconAlertCircle size={18} />}>
              {refusal}
            </Alert>
          )}
          {/* Every field of these forms is required; the asterisk would only add noise and a stray ' *' to the label. */}
          <TextInput
            ref={emailRef}
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
          <PasswordField
            label="Password"
            name="password"
            autoComplete="current-password"
            required
            withAsterisk={false}
            value={password}
            error={errors.password}
            onChange={(event) => setPassword(event.currentTarget.value)}
          />
          <Group justify="flex-end">
            <Anchor component={Link} to="/forgot-password" size="sm">
              Forgot your password?
            </Anchor>
          </Group>
          <Button type="submit" fullWidth loading={login.isPending}>
            Sign in
          </Button>
          <Text size="sm" ta="center">
            New to Sendwell?{' '}
            <Anchor component={Link} to="/register">
              Create an account
            </Anchor>
          </Text>
        </Stack>
      </form>
    </AuthLayout>
  );
};
