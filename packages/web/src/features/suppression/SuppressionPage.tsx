import { Anchor, Badge, Button, Group, Modal, Stack, Switch, Text } from '@mantine/core';
import {
  routeUrl,
  SUPPRESSION_TYPES,
  suppressionApi,
  TEMPORARY_SUPPRESSION_RULE,
  type TSuppression,
} from '@sendwell/contracts';
import { IconDownload } from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { callRoute, toSearchParams } from '../../app/api';
import { useFormatDateTime } from '../../app/dates';
import { openSuccessDialog } from '../../app/dialogs';
import { showSuccess } from '../../app/toasts';
import { DataTableCard, type TDataTableColumn } from '../../components/DataTable';
import { DateRangeFilter, type TDateRange } from '../../components/DateRangeFilter';
import { DialogActions } from '../../components/DialogActions';
import { FilterForm } from '../../components/FilterForm';
import { FilterSelect } from '../../components/FilterSelect';
import { PageHeader } from '../../components/PageHeader';

const LIST_URL = routeUrl(suppressionApi.list);
const EXPORT_URL = routeUrl(suppressionApi.export);
const suppressionKeys = { list: ['suppressions', 'list'] as const };

type TConfirm = { kind: 'rows'; ids: number[]; label: string; onDone?: () => void } | { kind: 'all' } | null;

const Reclassify = ({ row }: { row: TSuppression }) => {
  const queryClient = useQueryClient();
  const [type, setType] = useState<string>(row.type);
  const reclassify = useMutation({
    mutationFn: () =>
      callRoute(suppressionApi.reclassify, { params: { id: row.id }, body: { type: type as TSuppression['type'] } }),
    onSuccess: ({ message }) => {
      showSuccess(message);
      return queryClient.invalidateQueries({ queryKey: suppressionKeys.list });
    },
  });
  return (
    <Group gap="xs" align="flex-end">
      <FilterSelect
        label="Reclassify as"
        value={type}
        onChange={setType}
        data={SUPPRESSION_TYPES.map((value) => ({ value, label: value }))}
      />
      <Button
        size="compact-sm"
        variant="default"
        disabled={type === row.type}
        loading={reclassify.isPending}
        onClick={() => reclassify.mutate()}
      >
        Save type
      </Button>
    </Group>
  );
};

const Details = ({ row, onRemove }: { row: TSuppression; onRemove: () => void }) => (
  <Stack gap={6} p="sm">
    <Group gap="xs" align="flex-start">
      <Text size="sm" fw={600} miw={110}>
        Mailing lists
      </Text>
      {row.lists.length === 0 ? (
        <Text size="sm" c="dimmed">
          On none of your lists.
        </Text>
      ) : (
        <Group gap={6}>
          {row.lists.map((list) => (
            <Anchor key={list.id} component={Link} to={`/mailing-lists/detail/${list.account_id}/${list.id}`} size="sm">
              {list.mailing_list}
              {list.subscribed ? '' : ' (unsubscribed)'}
            </Anchor>
          ))}
        </Group>
      )}
    </Group>
    {(
      [
        ['Reason', row.reason],
        ['Message', row.message],
        ['Description', row.description],
      ] as const
    ).map(([label, value]) => (
      <Group key={label} gap="xs" align="flex-start" wrap="nowrap">
        <Text size="sm" fw={600} miw={110}>
          {label}
        </Text>
        <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
          {value || '—'}
        </Text>
      </Group>
    ))}
    <Reclassify row={row} />
    <Group>
      <Button size="compact-sm" variant="default" onClick={onRemove}>
        Remove from suppression
      </Button>
      <Text size="xs" c="dimmed">
        After review: the next sends include this address again
        {row.source === 'mailgun' ? ', and Mailgun takes it off its list' : ''}.
      </Text>
    </Group>
  </Stack>
);

/** Bounces and suppression (spec §2 screen 11). */
export const SuppressionPage = () => {
  const formatDateTime = useFormatDateTime();
  const queryClient = useQueryClient();
  // Type and dates as chosen, and as applied by the Filter button (spec §2 screen 11).
  const [draft, setDraft] = useState<{ type: string; dates: TDateRange }>({ type: '', dates: {} });
  const [applied, setApplied] = useState(draft);
  const [seeHidden, setSeeHidden] = useState(false);
  const [confirm, setConfirm] = useState<TConfirm>(null);
  const [removing, setRemoving] = useState<TSuppression | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: suppressionKeys.list });
  const clear = useMutation({
    mutationFn: (target: NonNullable<TConfirm>) =>
      target.kind === 'all'
        ? callRoute(suppressionApi.clearAll)
        : callRoute(suppressionApi.clear, { body: { bounce_id: target.ids, is_array: true } }),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: (id: number) => callRoute(suppressionApi.remove, { params: { id } }),
    onSuccess: refresh,
  });
  const filters = {
    type: applied.type,
    ...applied.dates,
    see_hidden: seeHidden ? 1 : undefined,
  };

  const columns: TDataTableColumn<TSuppression>[] = [
    { key: 'email', title: 'Email', sortable: true },
    {
      key: 'type',
      title: 'Type',
      sortable: true,
      render: (row) => (
        <Stack gap={2} align="flex-start">
          <Badge variant="light">{row.type}</Badge>
          {row.expires_at && (
            <Text size="xs" c="dark.4">
              until {formatDateTime(row.expires_at)}
            </Text>
          )}
        </Stack>
      ),
    },
    { key: 'quantity', title: 'Times', sortable: true, align: 'right' },
    {
      key: 'status',
      title: 'Status',
      render: (row) =>
        row.status === 'Cleaned' ? (
          <Badge color="green" variant="light">
            Cleaned
          </Badge>
        ) : row.status === 'On List' ? (
          <Badge color="orange" variant="light">
            On List
          </Badge>
        ) : (
          '—'
        ),
    },
    { key: 'created_at', title: 'Date', sortable: true, render: (row) => formatDateTime(row.created_at) },
    {
      key: 'actions',
      title: 'Actions',
      render: (row) =>
        row.status === 'On List' ? (
          <Button
            size="compact-xs"
            variant="default"
            onClick={() => setConfirm({ kind: 'rows', ids: [row.id], label: row.email })}
            aria-label={`Unsubscribe ${row.email}`}
          >
            Unsubscribe
          </Button>
        ) : null,
    },
  ];

  return (
    <>
      <PageHeader
        title="Bounces and Suppression"
        description="Addresses Sendwell no longer sends to: bounces, complaints and unsubscribes. Clean them from your lists here."
        actions={
          <Button
            component="a"
            href={`${EXPORT_URL}?${toSearchParams(filters)}`}
            variant="default"
            leftSection={<IconDownload size={16} />}
          >
            Export CSV
          </Button>
        }
      />
      <Text size="sm" c="dark.4" mb="sm" data-testid="temporary-rule">
        <b>Temporary suppressions:</b> {TEMPORARY_SUPPRESSION_RULE}
      </Text>
      <DataTableCard<TSuppression>
        label="Suppressions"
        queryKey={suppressionKeys.list}
        url={LIST_URL}
        columns={columns}
        defaultSort={{ column: 'created_at', order: 'desc' }}
        filters={filters}
        searchable
        selectable
        isRowSelectable={(row) => row.status === 'On List'}
        renderExpanded={(row) => <Details row={row} onRemove={() => setRemoving(row)} />}
        toolbar={({ selectedIds, clearSelection }) => (
          <Group gap="xs" align="flex-end">
            <FilterForm label="Filter suppressions" onApply={() => setApplied(draft)}>
              <FilterSelect
                label="Type"
                value={draft.type}
                onChange={(type) => setDraft({ ...draft, type })}
                data={[
                  { value: '', label: 'All types' },
                  ...SUPPRESSION_TYPES.map((value) => ({ value, label: value })),
                ]}
              />
              <DateRangeFilter
                size="xs"
                withTime
                value={draft.dates}
                onChange={(dates) => setDraft({ ...draft, dates })}
              />
            </FilterForm>
            <Switch
              size="sm"
              label="Show hidden"
              checked={seeHidden}
              onChange={(event) => setSeeHidden(event.currentTarget.checked)}
            />
            <Button
              size="xs"
              variant="default"
              disabled={selectedIds.length === 0}
              onClick={() =>
                setConfirm({
                  kind: 'rows',
                  ids: selectedIds.map(Number),
                  label: `${selectedIds.length} selected address${selectedIds.length === 1 ? '' : 'es'}`,
                  onDone: clearSelection,
                })
              }
            >
              Unsubscribe Selected
            </Button>
            <Button size="xs" variant="default" color="red" onClick={() => setConfirm({ kind: 'all' })}>
              Unsubscribe All
            </Button>
          </Group>
        )}
        emptyText="No data found."
      />
      <Modal
        opened={confirm !== null}
        onClose={() => setConfirm(null)}
        title={confirm?.kind === 'all' ? 'Unsubscribe all?' : 'Unsubscribe?'}
      >
        <Stack>
          <Text size="sm">
            {confirm?.kind === 'all'
              ? 'Every suppressed address is unsubscribed from all of your mailing lists.'
              : `${confirm?.kind === 'rows' ? confirm.label : ''} will be unsubscribed from all of your mailing lists.`}
          </Text>
          <DialogActions onCancel={() => setConfirm(null)} cancelLabel="Back">
            <Button
              color="red.9"
              loading={clear.isPending}
              onClick={() =>
                confirm &&
                clear.mutate(confirm, {
                  onSuccess: ({ message }) => {
                    if (confirm.kind === 'rows') confirm.onDone?.();
                    setConfirm(null);
                    openSuccessDialog(message);
                  },
                })
              }
            >
              {confirm?.kind === 'all' ? 'Unsubscribe All' : 'Unsubscribe'}
            </Button>
          </DialogActions>
        </Stack>
      </Modal>
      <Modal opened={removing !== null} onClose={() => setRemoving(null)} title="Remove from suppression?">
        <Stack>
          <Text size="sm">
            {removing?.email} will receive your next sends again. Do this only when the bounce was a mistake.
          </Text>
          <DialogActions onCancel={() => setRemoving(null)} cancelLabel="Back">
            <Button
              loading={remove.isPending}
              onClick={() =>
                removing &&
                remove.mutate(removing.id, {
                  onSuccess: ({ message }) => {
                    setRemoving(null);
                    openSuccessDialog(message);
                  },
                })
              }
            >
              Remove
            </Button>
          </DialogActions>
        </Stack>
      </Modal>
    </>
  );
};
