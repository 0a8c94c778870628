import { Badge, Group, NativeSelect, Paper, Stack, Text } from '@mantine/core';
import { DatePickerInput } from '@mantine/dates';
import {
  CREDIT_LOG_DEFAULT_PER_PAGE,
  CREDIT_TYPES,
  type TCreditLogEntry,
  type TCreditType,
  usableCredit,
} from '@sendwell/contracts';
import { IconCalendar } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useFormatDateTime } from '../../app/dates';
import { useRealtimeEvent } from '../../app/realtime';
import { DataTable, type TDataTableColumn } from '../../components/DataTable';
import { PageHeader } from '../../components/PageHeader';
import { CreditQuantity } from './CreditQuantity';
import { creditTypeLabel, formatCredits } from './credits.format';
import { CREDIT_LOG_URL, creditKeys } from './credits.queries';
import { useCreditBalance } from './useCreditBalance';

/** Mantine's range value: days as YYYY-MM-DD, the spec's filter format, so they go to the server as they are. */
type TDateRange = [string | null, string | null];

const ALL_TYPES = 'all';

const typeOptions = [
  { value: ALL_TYPES, label: 'All types' },
  ...CREDIT_TYPES.map((type) => ({ value: type, label: creditTypeLabel(type) })),
];

const isCreditType = (value: string): value is TCreditType => (CREDIT_TYPES as readonly string[]).includes(value);

const BalanceStat = ({ label, value, testId }: { label: string; value: number | undefined; testId: string }) => (
  <Stack gap={2}>
    <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
      {label}
    </Text>
    <Text fz="xl" fw={650} data-testid={testId} style={{ fontVariantNumeric: 'tabular-nums' }}>
      {value === undefined ? '—' : formatCredits(value)}
    </Text>
  </Stack>
);

export const CreditLogPage = () => {
  const queryClient = useQueryClient();
  const formatDateTime = useFormatDateTime();
  const balance = useCreditBalance();
  const [dateRange, setDateRange] = useState<TDateRange>([null, null]);
  const [type, setType] = useState<TCreditType | null>(null);

  // Every change to the balance is a new entry: show it without a reload.
  useRealtimeEvent('CreditBalanceEvent', () => void queryClient.invalidateQueries({ queryKey: creditKeys.log }));

  // While the second day is still being picked the range is half made; the table waits for it
  // (closing the picker on half a range clears it).
  const [firstDate, lastDate] = dateRange;
  const isRangeComplete = Boolean(firstDate && lastDate);

  const columns: TDataTableColumn<TCreditLogEntry>[] = [
    {
      key: 'type',
      title: 'Type',
      sortable: true,
      render: (entry) => (
        <Badge variant="light" tt="none" fw={600}>
          {creditTypeLabel(entry.type)}
        </Badge>
      ),
    },
    {
      key: 'quantity',
      title: 'Quantity',
      sortable: true,
      width: 120,
      render: (entry) => <CreditQuantity quantity={entry.quantity} />,
    },
    {
      key: 'reference',
      title: 'Reference',
      render: (entry) => (
        <Text size="sm" c="dimmed" lineClamp={1} maw={420}>
          {entry.reference ?? '—'}
        </Text>
      ),
    },
    {
      key: 'created_at',
      title: 'Date',
      sortable: true,
      width: 190,
      render: (entry) => formatDateTime(entry.created_at),
    },
  ];

  return (
    <>
      <PageHeader
        title="Credit Log"
        description="Every change to your credit balance is listed here, newest first: purchases, monthly credits, verifications and spam tests."
      />
      <Paper withBorder p="md" mb="md" w="fit-content">
        <Group gap="xl" wrap="nowrap">
          {/* The spec's three figures: usable = total − used. */}
          <BalanceStat label="Usable" value={balance ? usableCredit(balance) : undefined} testId="credit-log-balance" />
          <BalanceStat label="Used" value={balance?.usedCredit} testId="credit-log-used" />
          <BalanceStat label="Total" value={balance?.totalCredit} testId="credit-log-total" />
        </Group>
      </Paper>
      <Paper withBorder p="md">
        <DataTable<TCreditLogEntry>
          label="Credit log"
          queryKey={creditKeys.log}
          url={CREDIT_LOG_URL}
          columns={columns}
          rowKey={(entry) => entry.id}
          defaultSort={{ column: 'created_at', order: 'desc' }}
          defaultPerPage={CREDIT_LOG_DEFAULT_PER_PAGE}
          searchable={false}
          filters={{
            first_date: isRangeComplete ? firstDate : undefined,
            last_date: isRangeComplete ? lastDate : undefined,
            type: type ?? undefined,
          }}
          toolbar={
            <Group gap="sm" align="flex-end" wrap="wrap">
              <DatePickerInput
                type="range"
                label="Date range"
                placeholder="Any date"
                valueFormat="MM/DD/YYYY"
                leftSection={<IconCalendar size={16} aria-hidden />}
                allowSingleDateInRange
                clearable
                w={{ base: '100%', xs: 260 }}
                value={dateRange}
                onChange={setDateRange}
              />
              <NativeSelect
                label="Type"
                data={typeOptions}
                w={{ base: '100%', xs: 220 }}
                value={type ?? ALL_TYPES}
                onChange={(event) => {
                  const { value } = event.currentTarget;
                  setType(isCreditType(value) ? value : null);
                }}
              />
            </Group>
          }
        />
      </Paper>
    </>
  );
};
