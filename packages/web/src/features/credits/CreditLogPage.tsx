import { Badge, Group, NativeSelect, Paper, Stack, Text } from '@mantine/core';
import {
  CREDIT_LOG_DEFAULT_PER_PAGE,
  CREDIT_TYPES,
  type TCreditLogEntry,
  type TCreditType,
  usableCredit,
} from '@sendwell/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useFormatDateTime } from '../../app/dates';
import { useRealtimeEvent } from '../../app/realtime';
import { DataTableCard, type TDataTableColumn } from '../../components/DataTable';
import { DateRangeFilter, type TDateRange } from '../../components/DateRangeFilter';
import { PageHeader } from '../../components/PageHeader';
import { CreditQuantity } from './CreditQuantity';
import { creditTypeLabel, formatCredits } from './credits.format';
import { CREDIT_LOG_URL, creditKeys } from './credits.queries';
import { useCreditBalance } from './useCreditBalance';

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
  const [dates, setDates] = useState<TDateRange>({});
  const [type, setType] = useState<TCreditType | null>(null);

  // Every change to the balance is a new entry: show it without a reload.
  useRealtimeEvent('CreditBalanceEvent', () => void queryClient.invalidateQueries({ queryKey: creditKeys.log }));

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
      <DataTableCard<TCreditLogEntry>
        label="Credit log"
        queryKey={creditKeys.log}
        url={CREDIT_LOG_URL}
        columns={columns}
        defaultSort={{ column: 'created_at', order: 'desc' }}
        defaultPerPage={CREDIT_LOG_DEFAULT_PER_PAGE}
        searchable={false}
        filters={{
          ...dates,
          type: type ?? undefined,
        }}
        toolbar={
          <Group gap="sm" align="flex-end" wrap="wrap">
            <DateRangeFilter value={dates} onChange={setDates} />
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
    </>
  );
};
