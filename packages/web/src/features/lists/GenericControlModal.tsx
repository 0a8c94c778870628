import { Alert, Button, Checkbox, Group, List, Modal, Stack, Text } from '@mantine/core';
import { GENERIC_MODAL_PREVIEW, LIST_MESSAGES, moreText, type TMailingList } from '@sendwell/contracts';
import { IconAlertTriangle, IconCircleCheck } from '@tabler/icons-react';
import { useState } from 'react';
import { openSuccessDialog } from '../../app/dialogs';
import { DialogActions } from '../../components/DialogActions';
import { QueryStatus } from '../../components/QueryStatus';
import { useClearGenericEmails, useGenericControl } from './lists.queries';
import { useRetained } from './useRetained';

const GenericControlBody = ({ list, onClose }: { list: TMailingList; onClose: () => void }) => {
  const control = useGenericControl(list.id);
  const clear = useClearGenericEmails();
  const [isConfirmed, setIsConfirmed] = useState(false);

  if (control.isPending || control.isError) {
    return (
      <QueryStatus
        query={control}
        label="Looking for generic addresses"
        failed="The generic addresses could not be loaded"
      />
    );
  }

  const { emails, total } = control.data;
  if (total === 0) {
    return (
      <Stack>
        <Alert color="green" icon={<IconCircleCheck size={18} />}>
          {LIST_MESSAGES.noGeneric}
        </Alert>
        <Group justify="flex-end">
          <Button onClick={onClose}>OK</Button>
        </Group>
      </Stack>
    );
  }

  const unsubscribe = () =>
    clear.mutate(list.id, {
      onSuccess: ({ message }) => {
        onClose();
        openSuccessDialog(message);
      },
    });

  return (
    <Stack>
      <Text>
        {total} generic {total === 1 ? 'address is' : 'addresses are'} on <strong>{list.address}</strong>:
      </Text>
      <List size="sm" spacing={2} data-testid="generic-emails">
        {emails.slice(0, GENERIC_MODAL_PREVIEW).map((email) => (
          <List.Item key={email}>{email}</List.Item>
        ))}
      </List>
      {total > GENERIC_MODAL_PREVIEW && (
        <Text size="sm" c="dimmed">
          {moreText(total, GENERIC_MODAL_PREVIEW)}
        </Text>
      )}
      <Alert color="orange" icon={<IconAlertTriangle size={18} />}>
        {LIST_MESSAGES.genericWarning}
      </Alert>
      <Text size="sm" c="dimmed">
        Unsubscribed addresses stay on the list with their history and get no more email from it; you can subscribe one
        again from its member page.
      </Text>
      <Checkbox
        label="I want to unsubscribe these addresses"
        checked={isConfirmed}
        onChange={(event) => setIsConfirmed(event.currentTarget.checked)}
      />
      <DialogActions onCancel={onClose} isPending={clear.isPending}>
        <Button color="red.9" disabled={!isConfirmed} loading={clear.isPending} onClick={unsubscribe}>
          Unsubscribe them
        </Button>
      </DialogActions>
    </Stack>
  );
};

/**
 * Generic Email Control (spec §2 screen 5, §5): the list's subscribed info@, sales@…
 * addresses, unsubscribed once the checkbox is ticked (they stay on the list).
 */
export const GenericControlModal = ({ list, onClose }: { list: TMailingList | null; onClose: () => void }) => {
  const shown = useRetained(list);
  return (
    <Modal opened={list !== null} onClose={onClose} title="Generic Email Control" size="lg">
      {shown && <GenericControlBody list={shown} onClose={onClose} />}
    </Modal>
  );
};
