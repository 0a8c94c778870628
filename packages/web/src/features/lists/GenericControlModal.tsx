import { Alert, Button, Center, Checkbox, Group, List, Loader, Modal, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { GENERIC_MODAL_PREVIEW, LIST_MESSAGES, moreText, type TMailingList } from '@sendwell/contracts';
import { IconAlertTriangle, IconCircleCheck } from '@tabler/icons-react';
import { useState } from 'react';
import { LoadFailedAlert } from '../../components/LoadFailedAlert';
import { useClearGenericEmails, useGenericControl } from './lists.queries';
import { useRetained } from './useRetained';

const GenericControlBody = ({ list, onClose }: { list: TMailingList; onClose: () => void }) => {
  const control = useGenericControl(list.id);
  const clear = useClearGenericEmails();
  const [isConfirmed, setIsConfirmed] = useState(false);

  if (control.isPending) {
    return (
      <Center py="lg">
        <Loader aria-label="Looking for generic addresses" />
      </Center>
    );
  }
  if (control.isError) {
    return <LoadFailedAlert title="The generic addresses could not be loaded" onRetry={() => void control.refetch()} />;
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

  const remove = () =>
    clear.mutate(list.id, {
      onSuccess: ({ message }) => {
        notifications.show({ color: 'green', title: 'Success!', message, position: 'top-center' });
        onClose();
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
      <Checkbox
        label="I want to remove these addresses from the list"
        checked={isConfirmed}
        onChange={(event) => setIsConfirmed(event.currentTarget.checked)}
      />
      <Group justify="flex-end">
        <Button variant="default" onClick={onClose} disabled={clear.isPending}>
          Cancel
        </Button>
        <Button color="red" disabled={!isConfirmed} loading={clear.isPending} onClick={remove}>
          Remove these addresses
        </Button>
      </Group>
    </Stack>
  );
};

/** Generic Email Control (spec §2 screen 5, §5): the list's info@, sales@… addresses, removable once confirmed. */
export const GenericControlModal = ({ list, onClose }: { list: TMailingList | null; onClose: () => void }) => {
  const shown = useRetained(list);
  return (
    <Modal
      opened={list !== null}
      onClose={onClose}
      title="Generic Email Control"
      size="lg"
      centered
      closeButtonProps={{ 'aria-label': 'Close' }}
    >
      {shown && <GenericControlBody list={shown} onClose={onClose} />}
    </Modal>
  );
};
