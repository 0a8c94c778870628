import { Alert, Anchor, Button, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { ZNewPassword } from '@sendwell/contracts';
import { IconAlertCircle } from '@tabler/icons-react';
import { type FormEvent, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiError } from '../../app/api';
import { fieldErrors, showError } from '../../app/errors';
import { useAutofocus } from '../../app/forms';
import { PasswordField } from '../../components/PasswordField';
import { AuthLayout } from './AuthLayout';
import { useResetPassword } from './auth.queries';

type TErrors = { password?: string; confirmation?: string };

/** The same rules the server applies (trimmed, at least 6 characters), checked before the round trip. */
const checkPasswords = (password: string, confirmation: string): TErrors => {
  const parsed = ZNewPassword.safeParse(password);
  if (!parsed.success) return { password: parsed.error.issues[0]?.message };
  if (password.trim() !== confirmation.trim()) return { confirmation: 'The passwords do not match.' };
  return {};
};

export const ResetPasswordPage = () => {
  const { token = '' } = useParams();
  const navigate = useNavigate();
  const resetPassword = useResetPassword();
  const passwordRef = useAutofocus<HTMLInputElement>();
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [errors, setErrors] = useState<TErrors>({});
  const [linkError, setLinkError] = useState<string | null>(null);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const problems = checkPasswords(password, confirmation);
    setErrors(problems);
    if (problems.password || problems.confirmation) return;

    resetPassword.mutate(
      { token, password },
      {
        onSuccess: ({ message }) => {
          notifications.show({ color: 'green', title: 'Success!', message, position: 'top-center' });
          navigate('/login', { replace: true });
        },
        onError: (error) => {
          if (!(error instanceof ApiError) || error.status !== 422) return showError(error);
          const fields = fieldErrors(error);
          setLinkError(fields.token ?? null);
          setErrors({ password: fields.password });
        },
      },
    );
  };

  return (
    <AuthLayout title="Choose a new password" description="At least 6 characters. You will sign in with it next.">
      <form onSubmit={submit} noValidate>
        <Stack>
          {linkError && (
            <Alert color="red" icon={<IconAlertCircle size={18} />}>
              {linkError}{' '}
              <Anchor component={Link} to="/forgot-password" size="sm">
                Request a new link
              </Anchor>
            </Alert>
          )}
          <PasswordField
            ref={passwordRef}
            label="New password"
            name="password"
            autoComplete="new-password"
            required
            withAsterisk={false}
            value={password}
            error={errors.password}
            onChange={(event) => setPassword(event.currentTarget.value)}
          />
          <PasswordField
            label="Confirm password"
            name="password_confirmation"
            autoComplete="new-password"
            required
            withAsterisk={false}
            value={confirmation}
            error={errors.confirmation}
            onChange={(event) => setConfirmation(event.currentTarget.value)}
          />
          <Button type="submit" fullWidth loading={resetPassword.isPending}>
            Reset password
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
