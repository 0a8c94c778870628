import { Anchor, Badge, Button, Group, Paper, Stack, Text } from '@mantine/core';
import {
  eventLabel,
  HISTORY_EVENT_TYPES,
  historyApi,
  type TAbTestResult,
  type THistoryDetail,
  type THistoryRecord,
  type TSendCounts,
  withFallbacks,
} from '@sendwell/contracts';
import { IconDownload } from '@tabler/icons-react';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { callRoute, toSearchParams } from '../../app/api';
import { useFormatDateTime } from '../../app/dates';
import { DataTableCard, type TDataTableColumn } from '../../components/DataTable';
import { FilterSelect } from '../../components/FilterSelect';
import { PageHeader } from '../../components/PageHeader';
import { SendProgressCard } from '../send-email/SendProgressCard';
import { isSendActive, useSendProgress } from '../send-email/send-email.queries';
import { AbTestResult } from './AbTestResult';
import { EngagementResend } from './EngagementResend';
import { exportUrl, historyKeys, useLiveHistory } from './history.queries';
import { RepeatBadge } from './RepeatBadge';
import { SendFigures } from './SendFigures';

const EVENT_COLORS: Record<string, string> = {
  sent: 'blue',
  delivered: 'green',
  failed: 'red',
  opened: 'teal',
  clicked: 'grape',
  complained: 'orange',
  unsubscribed: 'gray',
};

/** History detail (spec §2 screen 9): one send's delivery events, filtered, searched, exported. */
export const HistoryDetailsPage = () => {
  const formatDateTime = useFormatDateTime();
  useLiveHistory();
  const params = useParams();
  const accountId = Number(params.accountId);
  const id = Number(params.id);
  const [eventType, setEventType] = useState('');
  const [send, setSend] = useState<THistoryRecord | null>(null);
  const [counts, setCounts] = useState<TSendCounts | undefined>(undefined);
  const [abTest, setAbTest] = useState<TAbTestResult | null>(null);
  // A send still going (or paused, by the user or the circuit breaker) is resumed or cancelled here too.
  const progress = useSendProgress(id);
  const columns: TDataTableColumn<THistoryDetail>[] = [
    { key: 'recipient', title: 'Recipient', sortable: true },
    {
      key: 'event_type',
      title: 'Event',
      sortable: true,
      render: (row) => (
        <Group gap={4} wrap="nowrap">
          <Badge variant="light" color={EVENT_COLORS[row.event_type] ?? 'gray'}>
            {eventLabel(row.event_type)}
          </Badge>
          {!row.is_first && <RepeatBadge />}
        </Group>
      ),
    },
    {
      key: 'detail',
      title: 'Detail',
      render: (row) => (
        <Text size="xs" c="dimmed" lineClamp={2} maw={420}>
          {row.detail ?? ''}
        </Text>
      ),
    },
    { key: 'created_at', title: 'Date', sortable: true, render: (row) => formatDateTime(row.created_at) },
  ];
  return (
    <>
      <PageHeader
        title={send ? `History: ${withFallbacks(send.subject)}` : 'History details'}
        description={send ? `${send.from} to ${send.to || 'its lists'}, ${formatDateTime(send.created_at)}` : undefined}
        actions={
          <Group gap="xs">
            <Anchor component={Link} to="/history" size="sm">
              Back to History
            </Anchor>
            {send && progress.data && ['finished', 'cancelled'].includes(progress.data.status) && (
              <EngagementResend sendId={id} accountId={accountId} subject={send.subject} />
            )}
            <Button
              component="a"
              href={`${exportUrl(accountId, id)}?${toSearchParams({ event_type: eventType })}`}
              leftSection={<IconDownload size={16} />}
              variant="default"
            >
              Export CSV
            </Button>
          </Group>
        }
      />
      {progress.data && isSendActive(progress.data.status) && (
        <Stack mb="md">
          <SendProgressCard sendId={id} />
        </Stack>
      )}
      {abTest && <AbTestResult result={abTest} accountId={accountId} />}
      <Paper withBorder p="md" mb="md">
        <SendFigures counts={counts} reportsDelivery={send?.provider === 'mailgun'} />
        <Text size="xs" c="dark.4" mt="xs">
          Each figure counts a recipient once. Every open and click is listed below; only a recipient’s first counts.
        </Text>
      </Paper>
      <DataTableCard<THistoryDetail>
        label="Delivery events"
        queryKey={historyKeys.details(id)}
        fetcher={async (query, signal) => {
          const page = await callRoute(historyApi.details, {
            params: { accountId, id },
            query: query as never,
            signal,
          });
          setSend(page.send);
          setCounts(page.counts);
          setAbTest(page.abTest ?? null);
          return page;
        }}
        columns={columns}
        defaultSort={{ column: 'created_at', order: 'desc' }}
        filters={{ event_type: eventType }}
        searchable
        toolbar={
          <FilterSelect
            aria-label="Event type"
            value={eventType}
            onChange={setEventType}
            data={[
              { value: '', label: 'All events' },
              ...HISTORY_EVENT_TYPES.map((type) => ({ value: type, label: eventLabel(type) })),
            ]}
          />
        }
        emptyText="No data found."
      />
    </>
  );
};
