import { Alert, Button, Center, Checkbox, List, Loader, Modal, Stack, Text } from '@mantine/core';
import type { TMailingList } from '@sendwell/contracts';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import { openSuccessDialog } from '../../app/dialogs';
import { DialogActions } from '../../components/DialogActions';
import { USAGE_LABELS } from './lists.format';
import { useDeleteList, useListUsage } from './lists.queries';
import { useRetained } from './useRetained';

const DeleteListBody = ({ list, onClose }: { list: TMailingList; onClose: () => void }) => {
  const request = { listId: list.id, account: list.account_id, address: list.address };
  const usage = useListUsage(request);
  const deleteList = useDeleteList();
  const [alsoAtMailgun, setAlsoAtMailgun] = useState(false);

  // Spec §8: a failed check clears the pending delete; the failure itself is reported by the query.
  const isCheckFailed = usage.isError;
  useEffect(() => {
    if (isCheckFailed) onClose();
  }, [isCheckFailed, onClose]);

  const confirm = () =>
    deleteList.mutate(
      { ...request, deleteMailgun: list.provider === 'mailgun' && alsoAtMailgun },
      {
        onSuccess: ({ message }) => {
          onClose();
          openSuccessDialog(message);
        },
      },
    );

  const campaigns = usage.data?.campaigns ?? [];
  return (
    <Stack>
      <Text>
        <strong>{list.address}</strong> and its {list.members_count} {list.members_count === 1 ? 'member' : 'members'}{' '}
        will be deleted.
      </Text>
      {usage.isPending ? (
        <Center py="sm">
          <Loader size="sm" aria-label="Checking what uses this list" />
        </Center>
      ) : (
        campaigns.length > 0 && (
          <Alert color="orange" icon={<IconAlertTriangle size={18} />} title="This list is in use">
            <Text size="sm" mb="xs">
              These will lose this list and no longer send to its members:
            </Text>
            <List size="sm">
              {campaigns.map((campaign) => (
                <List.Item key={`${campaign.type}-${campaign.id}`}>
                  {USAGE_LABELS[campaign.type]}: {campaign.name}
                </List.Item>
              ))}
            </List>
          </Alert>
        )
      )}
      {list.provider === 'mailgun' && (
        <Checkbox
          label="Also delete this list at Mailgun"
          checked={alsoAtMailgun}
          onChange={(event) => setAlsoAtMailgun(event.currentTarget.checked)}
        />
      )}
      <DialogActions onCancel={onClose} isPending={deleteList.isPending}>
        <Button color="red" onClick={confirm} loading={deleteList.isPending} disabled={usage.isPending}>
          Delete List
        </Button>
      </DialogActions>
    </Stack>
  );
};

/** Delete List (spec §4): confirm, after the server says what still uses the list. */
export const DeleteListModal = ({ list, onClose }: { list: TMailingList | null; onClose: () => void }) => {
  const shown = useRetained(list);
  return (
    <Modal opened={list !== null} onClose={onClose} title="Delete mailing list?">
      {shown && <DeleteListBody list={shown} onClose={onClose} />}
    </Modal>
  );
};
