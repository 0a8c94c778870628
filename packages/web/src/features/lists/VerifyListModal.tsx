import { Alert, Button, Center, Loader, Modal, Stack, Text } from '@mantine/core';
import { SEND_MESSAGES, type TMailingList, usableCredit, verificationApi } from '@sendwell/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { callRoute } from '../../app/api';
import { openSuccessDialog } from '../../app/dialogs';
import { showError } from '../../app/errors';
import { useRealtimeEvent } from '../../app/realtime';
import { useSignedInUser } from '../../app/session';
import { DialogActions } from '../../components/DialogActions';
import { ShortOfCreditsAlert } from '../credits/ShortOfCreditsAlert';
import { listKeys } from './lists.queries';

export type TListProgress = { checked: number; total: number };
const listProgressKey = (listId: number) => ['verification', 'list-progress', listId] as const;

/** How far a list's verification has got, as its live events tell (nothing until the first). */
export const useListProgress = (listId: number) =>
  useQuery<TListProgress | null>({
    queryKey: listProgressKey(listId),
    queryFn: () => null,
    enabled: false,
    staleTime: Number.POSITIVE_INFINITY,
  }).data ?? null;

/** The list table follows a list verification live: Processing..., then Verified with its counts. */
export const useListVerificationEvents = () => {
  const queryClient = useQueryClient();
  useRealtimeEvent('VerificationProgressEvent', (event) => {
    if (event.list_id) {
      queryClient.setQueryData<TListProgress>(listProgressKey(event.list_id), {
        checked: event.checked,
        total: event.total,
      });
    }
    void queryClient.invalidateQueries({ queryKey: listKeys.table });
  });
  useRealtimeEvent(
    'VerifyProgressDoneForUpsell',
    () => void queryClient.invalidateQueries({ queryKey: listKeys.table }),
  );
};

const VerifyListBody = ({ list, onClose }: { list: TMailingList; onClose: () => void }) => {
  const user = useSignedInUser();
  const queryClient = useQueryClient();
  const cost = useQuery({
    queryKey: ['verification', 'list-cost', list.id],
    queryFn: () => callRoute(verificationApi.creditCheck, { body: { mailingLists: [list.id] } }),
  });
  const verify = useMutation({
    mutationFn: () => callRoute(verificationApi.verifyLists, { body: { mailingLists: [list.id] } }),
    onSuccess: ({ message }) => {
      void queryClient.invalidateQueries({ queryKey: listKeys.table });
      onClose();
      openSuccessDialog(message);
    },
    onError: showError,
  });
  if (cost.isPending) {
    return (
      <Center p="lg">
        <Loader aria-label="Counting the members to verify" />
      </Center>
    );
  }
  if (cost.isError) return <Alert color="red">The cost could not be worked out. Please try again.</Alert>;
  const available = usableCredit(user.credit);
  // A single-company install (`BILLING=off`) has no credits: nothing to count or buy.
  const isShort = user.billing && cost.data.count > available;
  return (
    <Stack>
      {cost.data.totalCount === 0 ? (
        <Text size="sm">Every member of {list.address} is verified already.</Text>
      ) : (
        <>
          <Text size="sm">
            {cost.data.totalCount.toLocaleString('en-US')} member{cost.data.totalCount === 1 ? '' : 's'} not verified
            yet; {cost.data.controlled.toLocaleString('en-US')} checked before{user.billing ? ' (free of charge)' : ''}.
          </Text>
          {user.billing && (
            <Text size="sm">
              Credits to use: <b>{cost.data.count.toLocaleString('en-US')}</b> of {available.toLocaleString('en-US')}{' '}
              available.
            </Text>
          )}
          <Text size="sm" c="dark.4">
            {SEND_MESSAGES.unverified}
          </Text>
        </>
      )}
      {isShort && <ShortOfCreditsAlert />}
      <DialogActions onCancel={onClose}>
        <Button
          disabled={isShort || cost.data.totalCount === 0}
          loading={verify.isPending}
          onClick={() => verify.mutate()}
        >
          Verify Your List
        </Button>
      </DialogActions>
    </Stack>
  );
};

/** 'Verify Your List' (spec §2 screen 5, §4): the cost, then the list Processing... until verified. */
export const VerifyListModal = ({ list, onClose }: { list: TMailingList | null; onClose: () => void }) => (
  <Modal opened={list !== null} onClose={onClose} title={list ? `Verify ${list.address}` : ''}>
    {list && <VerifyListBody list={list} onClose={onClose} />}
  </Modal>
);
