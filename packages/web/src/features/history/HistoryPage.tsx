import { Anchor, Badge, Button, Group, Modal, Stack, Text } from '@mantine/core';
import { type THistoryRecord, withFallbacks } from '@sendwell/contracts';
import { IconRepeat } from '@tabler/icons-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { useFormatDateTime } from '../../app/dates';
import { openSuccessDialog } from '../../app/dialogs';
import { DataTableCard, type TDataTableColumn } from '../../components/DataTable';
import { DateRangeFilter, type TDateRange } from '../../components/DateRangeFilter';
import { DialogActions } from '../../components/DialogActions';
import { EmailAddress } from '../../components/EmailAddress';
import { FilterSelect } from '../../components/FilterSelect';
import { PageHeader } from '../../components/PageHeader';
import { useRetained } from '../lists/useRetained';
import { PreSendChecklist } from '../send-email/PreSendChecklist';
import {
  HISTORY_URL,
  historyKeys,
  useHistoryCounts,
  useLiveHistory,
  useResend,
  useResendPreSendCheck,
} from './history.queries';
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

/**
 * A send's From as two lines: the sender's name, and the address (which may break before its
 * `@`) under it, so a long address does not widen the table past the screen.
 */
const Sender = ({ from }: { from: string }) => {
  const match = /^\s*"?([^"<]*?)"?\s*<([^>]+)>\s*$/.exec(from);
  if (!match) return <EmailAddress email={from} minWidth="10rem" />;
  return (
    <Stack gap={0}>
      {match[1] && <Text size="sm">{match[1]}</Text>}
      <EmailAddress email={match[2]!} size="xs" c="dark.4" minWidth="10rem" />
    </Stack>
  );
};

/**
 * Send again: the same pre-send checklist as Send Email's confirmation, on the content that
 * will go (issue 45 §4), before anything is sent; a red item asks "Send it anyway?".
 */
const SendAgainModal = ({ send, onClose }: { send: THistoryRecord | null; onClose: () => void }) => {
  const shown = useRetained(send);
  const resend = useResend();
  const target = send?.account_id ? { accountId: send.account_id, id: send.id } : null;
  const check = useResendPreSendCheck(target);
  return (
    <Modal opened={send !== null} onClose={onClose} title="Send this email again?" size="lg">
      {shown && (
        <Stack>
          <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
            “{withFallbacks(shown.subject)}” goes out again, now, to the subscribed members of {shown.to || 'its lists'}
            .
          </Text>
          <PreSendChecklist
            check={check.data}
            isPending={check.isPending}
            isError={check.isError}
            onRetry={() => void check.refetch()}
          />
          <DialogActions onCancel={onClose}>
            <Button
              loading={resend.isPending}
              color={check.data?.hasFailures ? 'red' : undefined}
              onClick={() =>
                target &&
                resend.mutate(target, {
                  onSuccess: ({ message }) => {
                    onClose();
                    openSuccessDialog(message);
                  },
                })
              }
            >
              Yes, Send Again
            </Button>
          </DialogActions>
        </Stack>
      )}
    </Modal>
  );
};

/** Send history (spec §2 screen 8). */
export const HistoryPage = () => {
  const formatDateTime = useFormatDateTime();
  useLiveHistory();
  const [type, setType] = useState('');
  const [dates, setDates] = useState<TDateRange>({});
  const [again, setAgain] = useState<THistoryRecord | null>(null);

  const columns: TDataTableColumn<THistoryRecord>[] = [
    {
      key: 'subject',
      title: 'Subject',
      sortable: true,
      // As a reader sees it: merge fields as their fallbacks; the template itself on hover.
      render: (send) => (
        <Stack gap={2} miw="11rem">
          <Text size="sm" title={send.subject} style={{ overflowWrap: 'break-word' }}>
            {withFallbacks(send.subject)}
          </Text>
          {send.ab_test && (
            // A badge's text never wraps (Mantine clips it): a long label is a small line of its own.
            <Text size="xs" c="grape.9" fw={600} data-testid="history-ab-test">
              {send.ab_test.label}
            </Text>
          )}
        </Stack>
      ),
    },
    { key: 'from', title: 'From', render: (send) => <Sender from={send.from} /> },
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
      // One above the other: side by side they took 190 px of a table that must fit 1440 px (issue 45 §4).
      render: (send) => (
        <Stack gap={4} align="flex-start">
          {send.account_id !== null && (
            <Anchor component={Link} to={`/history/details/${send.account_id}/${send.id}`} size="sm">
              Details
            </Anchor>
          )}
          {/* A sent email is not edited: a new one starts from a copy of it. */}
          <Anchor
            component={Link}
            to={`/history/edit-email/${send.id}`}
            size="sm"
            aria-label={`Duplicate as a new email: ${withFallbacks(send.subject)}`}
          >
            Duplicate
          </Anchor>
          {send.account_id !== null && (
            <Button
              size="compact-xs"
              variant="default"
              leftSection={<IconRepeat size={12} />}
              onClick={() => setAgain(send)}
              aria-label={`Send again: ${withFallbacks(send.subject)}`}
            >
              Send again
            </Button>
          )}
        </Stack>
      ),
    },
  ];

  return (
    <>
      <PageHeader title="History" description="Everything you sent, with what happened to it." />
      <DataTableCard<THistoryRecord>
        label="Send history"
        queryKey={historyKeys.list}
        url={HISTORY_URL}
        columns={columns}
        rowLabel={(send) => withFallbacks(send.subject)}
        defaultSort={{ column: 'created_at', order: 'desc' }}
        filters={{ type, ...dates }}
        searchable
        renderExpanded={(send) => <SendStatistics send={send} />}
        toolbar={
          <Group gap="xs" align="flex-end">
            <FilterSelect
              label="Type"
              value={type}
              onChange={setType}
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
      <SendAgainModal send={again} onClose={() => setAgain(null)} />
    </>
  );
};
