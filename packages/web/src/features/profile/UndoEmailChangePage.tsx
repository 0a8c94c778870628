import { Alert, Anchor, Button, Stack, Text } from '@mantine/core';
import { IconCircleCheck } from '@tabler/icons-react';
import { Link, useParams } from 'react-router';
import { ApiError } from '../../app/api';
import { fieldErrors } from '../../app/errors';
import { FormError } from '../../components/FormError';
import { AuthLayout } from '../auth/AuthLayout';
import { useUndoEmailChange } from './profile.queries';

/**
 * The link mailed to the old address when a change of email is asked for or confirmed. It works
 * signed out and without the password (whoever asked knew it): one press cancels a waiting
 * change or puts a confirmed one back. Nothing happens on arrival, so a mail scanner that opens
 * links undoes no change.
 */
export const UndoEmailChangePage = () => {
  const { token = '' } = useParams();
  const undo = useUndoEmailChange();
  const problem =
    undo.error instanceof ApiError
      ? (Object.values(fieldErrors(undo.error))[0] ?? undo.error.message)
      : undo.error
        ? 'The change could not be undone. Try the link again.'
        : null;
  const isReverted = undo.data?.outcome === 'reverted';
  return (
    <AuthLayout
      title="Undo the change of your email"
      description="Didn’t ask to change your Sendwell email? Undo it here: no password needed."
    >
      <Stack>
        {!undo.isSuccess && (
          <>
            <Text size="sm">
              This cancels the change if it is still waiting. If it has already happened (up to a week ago), it puts
              this address back, signs every device out and mails you a link to choose a new password.
            </Text>
            <Button loading={undo.isPending} onClick={() => undo.mutate(token)} data-testid="undo-email-change">
              Undo the change
            </Button>
          </>
        )}
        {undo.isSuccess && (
          <Alert color="green" icon={<IconCircleCheck size={18} />} title="Done" data-testid="email-change-undone">
            {undo.data.message}
          </Alert>
        )}
        <FormError title="This link did not work" message={problem} />
        <Text size="sm" ta="center">
          {isReverted ? (
            <Anchor component={Link} to="/forgot-password">
              Choose a new password
            </Anchor>
          ) : (
            <Anchor component={Link} to="/login">
              Sign in
            </Anchor>
          )}
        </Text>
      </Stack>
    </AuthLayout>
  );
};
