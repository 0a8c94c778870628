import { Anchor, Button, Modal, Paper, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import type { TTestInboxMessage } from '@sendwell/contracts';
import { IconInbox, IconTrash } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useFormatDateTime } from '../../app/dates';
import { useRealtimeEvent } from '../../app/realtime';
import { showSuccess } from '../../app/toasts';
import { DataTable, type TDataTableColumn } from '../../components/DataTable';
import { DialogActions } from '../../components/DialogActions';
import { PageHeader } from '../../components/PageHeader';
import { MessagePreview } from './MessagePreview';
import { formatSize } from './test-inbox.format';
import { TEST_INBOX_MESSAGES_URL, testInboxKeys, useClearTestInbox } from './test-inbox.queries';

const ClearInboxModal = ({ opened, onClose }: { opened: boolean; onClose: () => void }) => {
  const clear = useClearTestInbox();
  return (
    <Modal opened={opened} onClose={onClose} title="Clear the test inbox?">
      <Stack>
        <Text>Every message in your test inbox will be deleted.</Text>
        <DialogActions onCancel={onClose} isPending={clear.isPending}>
          <Button
            color="red"
            loading={clear.isPending}
            data-testid="clear-inbox-confirm"
            onClick={() =>
              clear.mutate(undefined, {
                onSuccess: ({ message }) => {
                  showSuccess(message, null);
                  onClose();
                },
              })
            }
          >
            Clear inbox
          </Button>
        </DialogActions>
      </Stack>
    </Modal>
  );
};

export const TestInboxPage = () => {
  const queryClient = useQueryClient();
  const formatDateTime = useFormatDateTime();
  const [opened, setOpened] = useState<TTestInboxMessage | null>(null);
  const [isClearing, setIsClearing] = useState(false);

  useRealtimeEvent('TestInboxMessageEvent', ({ subject }) => {
    void queryClient.invalidateQueries({ queryKey: testInboxKeys.messages });
    notifications.show({
      title: 'Test inbox',
      message: `New message: ${subject || '(no subject)'}`,
      icon: <IconInbox size={18} />,
      position: 'bottom-right',
    });
  });

  const columns: TDataTableColumn<TTestInboxMessage>[] = [
    {
      key: 'created_at',
      title: 'Received',
      sortable: true,
      width: 190,
      render: (message) => formatDateTime(message.created_at),
    },
    { key: 'mail_from', title: 'From', render: (message) => message.mail_from || '—' },
    { key: 'rcpt_to', title: 'To', render: (message) => message.rcpt_to.join(', ') },
    {
      key: 'subject',
      title: 'Subject',
      sortable: true,
      render: (message) => (
        <Anchor component="button" type="button" size="sm" ta="left" onClick={() => setOpened(message)}>
          {message.subject || '(no subject)'}
        </Anchor>
      ),
    },
    {
      key: 'size_bytes',
      title: 'Size',
      align: 'right',
      width: 100,
      render: (message) => formatSize(message.size_bytes),
    },
  ];

  return (
    <>
      <PageHeader
        title="Test Inbox"
        description="Mail sent through the Sendwell test inbox account lands here and never leaves this machine."
      />
      <Paper withBorder p="md" data-testid="test-inbox-table">
        <DataTable<TTestInboxMessage>
          label="Test inbox messages"
          queryKey={testInboxKeys.messages}
          url={TEST_INBOX_MESSAGES_URL}
          columns={columns}
          defaultSort={{ column: 'created_at', order: 'desc' }}
          onRowClick={setOpened}
          toolbar={({ response }) => (
            <Button
              color="red"
              variant="light"
              leftSection={<IconTrash size={16} />}
              disabled={!response?.meta.total}
              onClick={() => setIsClearing(true)}
              data-testid="clear-inbox"
            >
              Clear inbox
            </Button>
          )}
        />
      </Paper>
      <MessagePreview message={opened} onClose={() => setOpened(null)} />
      <ClearInboxModal opened={isClearing} onClose={() => setIsClearing(false)} />
    </>
  );
};
