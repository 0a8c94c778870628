import { Alert, Anchor } from '@mantine/core';
import { ZNewPassword } from '@sendwell/contracts';
import { IconAlertCircle } from '@tabler/icons-react';
import { Link, useNavigate, useParams } from 'react-router';
import { z } from 'zod';
import { checkPasswordConfirmation, useAutofocus } from '../../app/forms';
import { showSuccess } from '../../app/toasts';
import { useZodForm } from '../../app/useZodForm';
import { FormStack } from '../../components/FormStack';
import { AuthSubmit, BackToSignIn, RequiredPasswordField } from './AuthFields';
import { AuthLayout } from './AuthLayout';
import { useResetPassword } from './auth.queries';

/** The same rules the server applies (trimmed, at least 6 characters), checked before the round trip. */
const ZNewPasswordForm = z.object({ password: ZNewPassword, confirmation: z.string() });

export const ResetPasswordPage = () => {
  const { token = '' } = useParams();
  const navigate = useNavigate();
  const resetPassword = useResetPassword();
  const passwordRef = useAutofocus<HTMLInputElement>();
  const form = useZodForm(ZNewPasswordForm, {
    initialValues: { password: '', confirmation: '' },
    validate: checkPasswordConfirmation,
    // The password goes as typed; the server trims it by the same rule.
    onSubmit: (_request, { values, fail }) =>
      resetPassword.mutate(
        { token, password: values.password },
        {
          onSuccess: ({ message }) => {
            showSuccess(message);
            navigate('/login', { replace: true });
          },
          // A spent or unknown link comes back as the `token` field's error.
          onError: fail,
        },
      ),
  });
  const linkError = form.errors.token;

  return (
    <AuthLayout title="Choose a new password" description="At least 6 characters. You will sign in with it next.">
      <FormStack onSubmit={form.onSubmit}>
        {linkError && (
          <Alert color="red" icon={<IconAlertCircle size={18} />}>
            {linkError}{' '}
            <Anchor component={Link} to="/forgot-password" size="sm">
              Request a new link
            </Anchor>
          </Alert>
        )}
        <RequiredPasswordField
          ref={passwordRef}
          label="New password"
          autoComplete="new-password"
          {...form.inputProps('password')}
        />
        <RequiredPasswordField
          label="Confirm password"
          autoComplete="new-password"
          {...form.inputProps('confirmation')}
          name="password_confirmation"
        />
        <AuthSubmit isPending={resetPassword.isPending} next={<BackToSignIn />}>
          Reset password
        </AuthSubmit>
      </FormStack>
    </AuthLayout>
  );
};
