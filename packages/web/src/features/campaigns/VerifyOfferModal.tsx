import { Alert, Anchor, Button, Group, Modal, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { type TVerifyStoreResult, usableCredit, VERIFY_MESSAGES, verificationApi } from '@sendwell/contracts';
import { useMutation } from '@tanstack/react-query';
import { Link } from 'react-router';
import { callRoute } from '../../app/api';
import { showError } from '../../app/errors';
import { useSignedInUser } from '../../app/session';

export type TVerifyOffer = { emails: string[]; stored: TVerifyStoreResult['data'] };

/**
 * The recipients step's verification offer (spec §4): the addresses go to the verification
 * tool's job (one credit per address not checked before, shown against the credits there are);
 * the campaign leaves out the ones found invalid.
 */
export const VerifyOfferModal = ({ offer, onClose }: { offer: TVerifyOffer | null; onClose: () => void }) => {
  const user = useSignedInUser();
  const available = usableCredit(user.credit);
  const start = useMutation({
    mutationFn: (stored: TVerifyOffer['stored']) =>
      callRoute(verificationApi.lastCheck, { body: { listId: stored.listId, creditsToBeUsed: stored.creditToBeUsed } }),
    onSuccess: () => {
      notifications.show({
        color: 'green',
        title: 'Success!',
        message: VERIFY_MESSAGES.queued,
        position: 'top-center',
      });
      onClose();
    },
    onError: showError,
  });
  const needed = offer?.stored.creditToBeUsed ?? 0;
  // A single-company install (`BILLING=off`) has no credits: nothing to count or buy.
  const isShort = user.billing && needed > available;
  return (
    <Modal
      opened={offer !== null}
      onClose={onClose}
      title="Verify the recipients?"
      centered
      closeButtonProps={{ 'aria-label': 'Close' }}
    >
      {offer && (
        <Stack>
          <Text size="sm">
            {offer.stored.total.toLocaleString('en-US')} addresses;{' '}
            {offer.stored.alreadyCheckedCount.toLocaleString('en-US')} checked before (no charge). Addresses found
            invalid are not sent to.
          </Text>
          {user.billing && (
            <Text size="sm" fw={600} data-testid="verify-credits">
              Credits to use: {needed.toLocaleString('en-US')} of {available.toLocaleString('en-US')} available.
            </Text>
          )}
          {isShort && (
            <Alert color="orange">
              To complete this process; please buy credits.{' '}
              <Anchor component={Link} to="/settings/subscription" size="sm">
                Buy Credits
              </Anchor>
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Not now
            </Button>
            <Button disabled={isShort} loading={start.isPending} onClick={() => start.mutate(offer.stored)}>
              Verify
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
};
