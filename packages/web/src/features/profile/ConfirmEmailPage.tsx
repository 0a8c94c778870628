import { Alert, Anchor, Loader, Stack, Text } from '@mantine/core';
import { IconCircleCheck } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { Link, useParams } from 'react-router';
import { ApiError } from '../../app/api';
import { fieldErrors } from '../../app/errors';
import { isSignedIn } from '../../app/session';
import { FormError } from '../../components/FormError';
import { AuthLayout } from '../auth/AuthLayout';
import { useConfirmEmail } from './profile.queries';

/**
 * The link mailed to a new email: opening it confirms the address (signed in or not, in any
 * browser: the token says whose email it is). Confirmed once on arrival.
 */
export const ConfirmEmailPage = () => {
  const { token = '' } = useParams();
  const queryClient = useQueryClient();
  const confirm = useConfirmEmail();
  const isStarted = useRef(false);
  useEffect(() => {
    // Once, even when React mounts the page twice in development.
    if (isStarted.current) return;
    isStarted.current = true;
    confirm.mutate(token);
  }, [confirm, token]);
  const problem =
    confirm.error instanceof ApiError
      ? (Object.values(fieldErrors(confirm.error))[0] ?? confirm.error.message)
      : confirm.error
        ? 'The email could not be confirmed. Try the link again.'
        : null;
  const next = isSignedIn(queryClient)
    ? { to: '/settings/profile', label: 'Back to your profile' }
    : { to: '/login', label: 'Sign in' };
  return (
    <AuthLayout title="Confirm your new email" description="The address you asked to sign in with from now on.">
      <Stack>
        {confirm.isPending && (
          <Stack align="center">
            <Loader aria-label="Confirming your email" />
          </Stack>
        )}
        {confirm.isSuccess && (
          <Alert color="green" icon={<IconCircleCheck size={18} />} title="Done" data-testid="email-confirmed">
            {confirm.data.message} Sign in with it from now on.
          </Alert>
        )}
        <FormError title="This link did not work" message={problem} />
        <Text size="sm" ta="center">
          <Anchor component={Link} to={next.to}>
            {next.label}
          </Anchor>
        </Text>
      </Stack>
    </AuthLayout>
  );
};
