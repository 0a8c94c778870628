import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { verificationApi } from '@sendwell/contracts';
import { useMutation } from '@tanstack/react-query';
import { callRoute } from '../../app/api';
import { showError } from '../../app/errors';

/**
 * The verify-lists upsell of the send flow (spec §2 screen 2, §4): when the chosen lists
 * hold unverified addresses, offer to verify them first (the lists go Processing... and the
 * user sends once they are verified) or to send anyway.
 */
export const VerifyListsModal = ({
  unverified,
  listIds,
  onSendAnyway,
  onCancel,
}: {
  unverified: number | null;
  listIds: number[];
  onSendAnyway: () => void;
  onCancel: () => void;
}) => {
  const verify = useMutation({
    mutationFn: () => callRoute(verificationApi.verifyLists, { body: { mailingLists: listIds } }),
    onSuccess: ({ message }) => {
      notifications.show({ color: 'green', title: 'Success!', message, position: 'top-center' });
      onCancel();
    },
    onError: showError,
  });
  return (
    <Modal
      opened={unverified !== null}
      onClose={onCancel}
      title="Verify your lists first?"
      centered
      closeButtonProps={{ 'aria-label': 'Close' }}
    >
      <Stack>
        <Text size="sm" fw={600}>
          Unverified email addresses will increase your email's spam score!
        </Text>
        <Text size="sm">
          {(unverified ?? 0).toLocaleString('en-US')} of the recipients are not verified yet. Verify the lists now (one
          credit per address not checked before) and send once they are verified, or send anyway.
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={onSendAnyway}>
            Send anyway
          </Button>
          <Button loading={verify.isPending} onClick={() => verify.mutate()}>
            Verify lists
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
};
