import { Anchor, Group } from '@mantine/core';
import { ZLoginRequest } from '@sendwell/contracts';
import { Link } from 'react-router';
import { useAutofocus } from '../../app/forms';
import { useZodForm } from '../../app/useZodForm';
import { FormStack } from '../../components/FormStack';
import { AuthSubmit, EmailField, RequiredPasswordField } from './AuthFields';
import { AuthLayout } from './AuthLayout';
import { useLogin } from './auth.queries';

export const LoginPage = () => {
  const login = useLogin();
  const emailRef = useAutofocus<HTMLInputElement>();
  const form = useZodForm(ZLoginRequest, {
    initialValues: { email: '', password: '' },
    // Wrong credentials and rate limits belong to this form, not to a dialog over it.
    refusalStatuses: [401, 429],
    onSubmit: (credentials, { fail }) => login.mutate(credentials, { onError: fail }),
  });

  return (
    <AuthLayout title="Sign in" description="Welcome back. Sign in to manage your email.">
      <FormStack onSubmit={form.onSubmit} error={form.formError}>
        <EmailField ref={emailRef} {...form.inputProps('email')} />
        <RequiredPasswordField label="Password" autoComplete="current-password" {...form.inputProps('password')} />
        <Group justify="flex-end">
          <Anchor component={Link} to="/forgot-password" size="sm">
            Forgot your password?
          </Anchor>
        </Group>
        <AuthSubmit
          isPending={login.isPending}
          next={
            <>
              New to Sendwell?{' '}
              <Anchor component={Link} to="/register">
                Create an account
              </Anchor>
            </>
          }
        >
          Sign in
        </AuthSubmit>
      </FormStack>
    </AuthLayout>
  );
};
