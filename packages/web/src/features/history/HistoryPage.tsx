import { Anchor, Badge, Button, Group, Modal, NativeSelect, Paper, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import type { THistoryRecord } from '@sendwell/contracts';
import { IconRepeat } from '@tabler/icons-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { useFormatDateTime } from '../../app/dates';
import { DataTable, type TDataTableColumn } from '../../components/DataTable';
import { DateRangeFilter, type TDateRange } from '../../components/DateRangeFilter';
import { PageHeader } from '../../components/PageHeader';
import { HISTORY_URL, historyKeys, useHistoryCounts, useLiveHistory, useResend } from './history.queries';
import { SendFigures } from './SendFigures';

/** The expanded row: lists, statistics (Mailgun reports deliveries; SMTP and Gmail what they accepted) and times. */
const SendStatistics = ({ send }: { send: THistoryRecord }) => {
  const formatDateTime = useFormatDateTime();
  const counts = useHistoryCounts(send.id);
  const reportsDelivery = !(counts.data && (counts.data.isSmtp || counts.data.isGmail));
  return (
    <Stack gap="xs" p="sm">
      <Text size="sm">
        <b>Lists:</b> {send.to || '—'}
      </Text>
      <SendFigures counts={counts.data?.counts} reportsDelivery={reportsDelivery} />
      <Text size="sm" c="dimmed">
        {send.deliver_at ? `Delivery time ${formatDateTime(send.deliver_at)}. ` : ''}
        {send.finished_at ? `Finished ${formatDateTime(send.finished_at)}.` : `State: ${send.state}.`}
      </Text>
    </Stack>
  );
};

/** Send history (spec §2 screen 8). */
export const HistoryPage = () => {
  const formatDateTime = useFormatDateTime();
  useLiveHistory();
  const resend = useResend();
  const [type, setType] = useState('');
  const [dates, setDates] = useState<TDateRange>({});
  const [again, setAgain] = useState<THistoryRecord | null>(null);

  const columns: TDataTableColumn<THistoryRecord>[] = [
    {
      key: 'subject',
      title: 'Subject',
      sortable: true,
      render: (send) =>
        send.ab_test ? (
          <Stack gap={2}>
            <span>{send.subject}</span>
            <Badge variant="light" color="grape" size="sm" data-testid="history-ab-test">
              {send.ab_test.label}
            </Badge>
          </Stack>
        ) : (
          send.subject
        ),
    },
    { key: 'from', title: 'From' },
    { key: 'to', title: 'To', render: (send) => send.to || '—' },
    { key: 'type', title: 'Type', render: (send) => (send.type === 2 ? 'Scheduled Mail' : 'Standard') },
    {
      key: 'status',
      title: 'Status',
      // The spec's Sent and Pending; a send that ended without going out says so, and why.
      render: (send) =>
        send.state === 'failed' ? (
          <Stack gap={2}>
            <Badge color="red" variant="light" size="sm">
              Failed
            </Badge>
            {send.note && (
              <Text size="xs" c="dimmed" maw={260} data-testid="history-note">
                {send.note}
              </Text>
            )}
          </Stack>
        ) : send.status === 1 ? (
          'Sent'
        ) : (
          'Pending'
        ),
    },
    { key: 'created_at', title: 'Created', sortable: true, render: (send) => formatDateTime(send.created_at) },
    {
      key: 'actions',
      title: 'Actions',
      render: (send) => (
        <Group gap={4} wrap="nowrap">
          {send.account_id !== null && (
            <Anchor component={Link} to={`/history/details/${send.account_id}/${send.id}`} size="sm">
              Details
            </Anchor>
          )}
          <Anchor
            component={Link}
            to={`/history/edit-email/${send.id}`}
            size="sm"
            aria-label={`Edit as new: ${send.subject}`}
          >
            Edit
          </Anchor>
          {send.account_id !== null && (
            <Button
              size="compact-xs"
              variant="default"
              leftSection={<IconRepeat size={12} />}
              onClick={() => setAgain(send)}
              aria-label={`Send again: ${send.subject}`}
            >
              Send again
            </Button>
          )}
        </Group>
      ),
    },
  ];

  return (
    <>
      <PageHeader title="History" description="Everything you sent, with what happened to it." />
      <Paper withBorder p="md">
        <DataTable<THistoryRecord>
          label="Send history"
          queryKey={historyKeys.list}
          url={HISTORY_URL}
          columns={columns}
          rowKey={(send) => send.id}
          defaultSort={{ column: 'created_at', order: 'desc' }}
          filters={{ type, ...dates }}
          searchable
          renderExpanded={(send) => <SendStatistics send={send} />}
          toolbar={
            <Group gap="xs" align="flex-end">
              <NativeSelect
                size="xs"
                label="Type"
                value={type}
                onChange={(event) => setType(event.currentTarget.value)}
                data={[
                  { value: '', label: 'All' },
                  { value: '1', label: 'Standard' },
                  { value: '2', label: 'Scheduled Mail' },
                ]}
              />
              <DateRangeFilter size="xs" withTime value={dates} onChange={setDates} />
            </Group>
          }
          emptyText="No data found."
        />
      </Paper>
      <Modal
        opened={again !== null}
        onClose={() => setAgain(null)}
        title="Send this email again?"
        centered
        closeButtonProps={{ 'aria-label': 'Close' }}
      >
        <Stack>
          <Text size="sm">
            “{again?.subject}” goes out again, now, to the subscribed members of {again?.to || 'its lists'}.
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setAgain(null)}>
              Cancel
            </Button>
            <Button
              loading={resend.isPending}
              onClick={() =>
                again?.account_id &&
                resend.mutate(
                  { accountId: again.account_id, id: again.id },
                  {
                    onSuccess: ({ message }) => {
                      notifications.show({ color: 'green', title: 'Success!', message, position: 'top-center' });
                      setAgain(null);
                    },
                  },
                )
              }
            >
              Yes, Send Again
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
};
