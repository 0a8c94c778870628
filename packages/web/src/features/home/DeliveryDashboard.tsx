import { Badge, Button, Card, Group, Paper, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import {
  counted,
  DELIVERY_EVENT_TYPES,
  dashboardApi,
  eventLabel,
  routeUrl,
  SEARCH_DEBOUNCE_SHORT_MS,
  type TDashboard,
  type TDeliveryEvent,
} from '@sendwell/contracts';
import { IconDownload } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { callRoute, toSearchParams } from '../../app/api';
import { useFormatDateTime } from '../../app/dates';
import { useRealtimeEvent } from '../../app/realtime';
import { ChartLegend, DayAxis, SeriesLine, ValueAxis } from '../../components/ChartParts';
import { axisTicks, shortDay } from '../../components/chartAxis';
import { DataTable, type TDataTableColumn } from '../../components/DataTable';
import { DateRangeFilter, type TDateRange } from '../../components/DateRangeFilter';
import { FilterSelect } from '../../components/FilterSelect';
import { TableScroller } from '../../components/TableScroller';
import { RepeatBadge } from '../history/RepeatBadge';

const dashboardKey = ['dashboard'] as const;
const EVENTS_URL = routeUrl(dashboardApi.events);
const EXPORT_URL = routeUrl(dashboardApi.export);

/** The six totals of the last 30 days, each a count and its share of the messages sent. */
const TOTALS = [
  { key: 'sent', label: 'Sent', color: 'var(--mantine-color-blue-7)' },
  { key: 'delivered', label: 'Delivered', color: 'var(--mantine-color-green-8)' },
  { key: 'opened', label: 'Opened', color: 'var(--mantine-color-teal-8)' },
  { key: 'clicked', label: 'Clicked', color: 'var(--mantine-color-grape-7)' },
  { key: 'bounced', label: 'Bounced', color: 'var(--mantine-color-red-7)' },
  { key: 'unsubscribed', label: 'Unsubscribed', color: 'var(--mantine-color-gray-7)' },
] as const;

const SERIES = [
  { key: 'total', label: 'Total', color: 'var(--mantine-color-blue-7)' },
  { key: 'delivered', label: 'Delivered', color: 'var(--mantine-color-green-8)' },
  { key: 'failed', label: 'Failed', color: 'var(--mantine-color-red-7)' },
] as const;

/** 'Last 30 Days' as a line chart (SVG), with the same figures in a table for screen readers. */
const LastThirtyDays = ({ chart }: { chart: TDashboard['stats']['chart'] }) => {
  const width = 720;
  const height = 200;
  const pad = { left: 36, right: 8, top: 8, bottom: 24 };
  const values = (key: (typeof SERIES)[number]['key']) =>
    chart.map((row) =>
      key === 'total'
        ? row.total
        : key === 'delivered'
          ? row.delivered.total
          : // Failed is what was given up (hard and soft bounces); a deferral is still being retried.
            row.failed.permanent.total,
    );
  const { top: max, ticks } = axisTicks(Math.max(1, ...values('total'), ...values('delivered'), ...values('failed')));
  const x = (index: number) => pad.left + (index * (width - pad.left - pad.right)) / Math.max(1, chart.length - 1);
  const y = (value: number) => pad.top + (height - pad.top - pad.bottom) * (1 - value / max);
  return (
    <Card withBorder>
      <Title order={2} fz="md" mb="xs">
        Last 30 Days
      </Title>
      <ChartLegend series={SERIES} />
      <svg viewBox={`0 0 ${width} ${height}`} width="100%" role="img" aria-labelledby="last-30-days-summary">
        <title id="last-30-days-summary">
          {`Messages per day over the last 30 days: ${values('total').reduce((a, b) => a + b, 0)} in all, ${values('delivered').reduce((a, b) => a + b, 0)} delivered, ${values('failed').reduce((a, b) => a + b, 0)} failed. The table below the chart lists each day.`}
        </title>
        <ValueAxis ticks={ticks} y={y} left={pad.left} right={width - pad.right} />
        <DayAxis
          days={chart.map((row) => row.time)}
          x={x}
          y={height - 6}
          isLabelled={(index) => index % 5 === 0 || index === chart.length - 1}
        />
        {SERIES.map((series) => (
          <SeriesLine key={series.key} values={values(series.key)} color={series.color} x={x} y={y} />
        ))}
      </svg>
    </Card>
  );
};

const LastSevenDays = ({ table }: { table: TDashboard['stats']['table'] }) => (
  <Card withBorder>
    <Title order={2} fz="md" mb="xs">
      Last 7 Days
    </Title>
    <TableScroller label="Last 7 days">
      <Table striped aria-label="Last 7 days">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Time</Table.Th>
            {/* The accepted figure: Sent, as History and the totals above call it (GLOSSARY). */}
            <Table.Th ta="right">Sent</Table.Th>
            <Table.Th ta="right">Delivered</Table.Th>
            <Table.Th ta="right">Failed</Table.Th>
            <Table.Th ta="right">Complained</Table.Th>
            <Table.Th ta="right">Total</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {[...table].reverse().map((row) => (
            <Table.Tr key={row.time}>
              <Table.Td>{shortDay(row.time)}</Table.Td>
              <Table.Td ta="right">{row.accepted.total.toLocaleString('en-US')}</Table.Td>
              <Table.Td ta="right">{row.delivered.total.toLocaleString('en-US')}</Table.Td>
              <Table.Td ta="right">{row.failed.permanent.total.toLocaleString('en-US')}</Table.Td>
              <Table.Td ta="right">{row.complained.total.toLocaleString('en-US')}</Table.Td>
              <Table.Td ta="right">{row.total.toLocaleString('en-US')}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </TableScroller>
  </Card>
);

/** One radial chart: a ring filled to the percentage, the total in the middle. */
const Radial = ({ label, total, percent, color }: { label: string; total: number; percent: number; color: string }) => {
  const radius = 34;
  const circumference = 2 * Math.PI * radius;
  return (
    <Paper withBorder p="sm">
      <Stack align="center" gap={4}>
        <svg
          width="90"
          height="90"
          viewBox="0 0 90 90"
          role="img"
          aria-label={`${label}: ${total.toLocaleString('en-US')} (${percent}%)`}
        >
          <circle cx="45" cy="45" r={radius} fill="none" stroke="var(--mantine-color-gray-2)" strokeWidth="8" />
          <circle
            cx="45"
            cy="45"
            r={radius}
            fill="none"
            stroke={color}
            strokeWidth="8"
            strokeDasharray={`${(Math.min(100, percent) / 100) * circumference} ${circumference}`}
            transform="rotate(-90 45 45)"
            strokeLinecap="round"
          />
          <text x="45" y="50" textAnchor="middle" fontSize="15" fontWeight="700" fill="var(--mantine-color-dark-7)">
            {total.toLocaleString('en-US')}
          </text>
        </svg>
        <Text size="sm" fw={600}>
          {label}
        </Text>
        <Text size="xs" c="dark.4">
          {percent}%
        </Text>
      </Stack>
    </Paper>
  );
};

/** The delivery dashboard (drip-accounts-dashboard spec §2): charts and the delivery-event table. */
export const DeliveryDashboard = () => {
  const formatDateTime = useFormatDateTime();
  const [eventType, setEventType] = useState('');
  const [dates, setDates] = useState<TDateRange>({});
  const dashboard = useQuery({
    queryKey: dashboardKey,
    queryFn: ({ signal }) => callRoute(dashboardApi.content, { signal }),
  });
  useRealtimeEvent('SendProgressEvent', () => void dashboard.refetch());
  if (!dashboard.data) return null;
  const { stats } = dashboard.data;
  const columns: TDataTableColumn<TDeliveryEvent>[] = [
    { key: 'recipient', title: 'Recipient' },
    {
      key: 'event_type',
      title: 'Event',
      render: (event) => (
        <Group gap={4}>
          <Badge variant="light">{eventLabel(event.event_type)}</Badge>
          {event.severity && (
            <Badge variant="outline" color={event.severity === 'permanent' ? 'red' : 'yellow'}>
              {event.event_type === 'failed' ? (event.severity === 'permanent' ? 'hard' : 'soft') : event.severity}
            </Badge>
          )}
          {!event.is_first && <RepeatBadge />}
        </Group>
      ),
    },
    {
      key: 'delivery_message',
      title: 'Message',
      render: (event) => (
        <Text size="xs" c="dark.4" lineClamp={2} maw={380}>
          {event.delivery_message ?? ''}
        </Text>
      ),
    },
    { key: 'created_at', title: 'Date', sortable: true, render: (event) => formatDateTime(event.created_at) },
  ];
  return (
    <Stack mb="xl">
      <SimpleGrid cols={{ base: 2, sm: 3, lg: 6 }} aria-label="Last 30 days in totals">
        {TOTALS.map((total) => (
          <Radial
            key={total.key}
            label={total.label}
            total={stats.tracking[total.key]}
            percent={stats.percentage[total.key]}
            color={total.color}
          />
        ))}
      </SimpleGrid>
      <Text size="sm" c="dark.4" data-testid="dashboard-figures">
        {/* Recipients counted once per send: messages, not people (a list of 25 sent to twice is 50). */}
        Last 30 days: {counted(stats.general.recipients, 'message')} (one per recipient of each send);{' '}
        {counted(stats.tracking.bounced_hard, 'hard bounce')} and {counted(stats.tracking.bounced_soft, 'soft bounce')},{' '}
        {counted(stats.tracking.complained, 'complaint')}, {counted(stats.tracking.deferred, 'deferred attempt')}.
        Shares are of these messages.
      </Text>
      {(dashboard.data.smtp || dashboard.data.google) && (
        <Text size="sm" c="dark.4">
          SMTP and Gmail accounts report what the receiving server accepted; deliveries come from Mailgun accounts,
          bounces and complaints after acceptance from Mailgun and from the bounce receiver (bounce messages and
          feedback loops).
        </Text>
      )}
      <SimpleGrid cols={{ base: 1, lg: 2 }}>
        <LastThirtyDays chart={stats.chart} />
        <LastSevenDays table={stats.table} />
      </SimpleGrid>
      <Card withBorder>
        <Group justify="space-between" mb="xs">
          <Title order={2} fz="md">
            Delivery events
          </Title>
          <Button
            component="a"
            size="xs"
            variant="default"
            leftSection={<IconDownload size={14} />}
            href={`${EXPORT_URL}?${toSearchParams({ event_type: eventType, ...dates })}`}
          >
            Export
          </Button>
        </Group>
        <DataTable<TDeliveryEvent>
          label="Delivery events"
          queryKey={['dashboard', 'events']}
          url={EVENTS_URL}
          columns={columns}
          defaultSort={{ column: 'created_at', order: 'desc' }}
          filters={{ event_type: eventType, ...dates }}
          // The drip document's debounce for this screen (its §9: 300 ms outside the campaign list).
          searchDebounceMs={SEARCH_DEBOUNCE_SHORT_MS}
          searchable
          toolbar={
            <Group gap="xs" align="flex-end">
              <FilterSelect
                label="Event type"
                value={eventType}
                onChange={setEventType}
                data={[
                  { value: '', label: 'All events' },
                  ...DELIVERY_EVENT_TYPES.map((type) => ({ value: type, label: eventLabel(type) })),
                ]}
              />
              <DateRangeFilter size="xs" value={dates} onChange={setDates} />
            </Group>
          }
          emptyText="No data found."
        />
      </Card>
    </Stack>
  );
};
