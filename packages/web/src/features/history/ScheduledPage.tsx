import { Badge, Button, Group, Modal, Stack, Text } from '@mantine/core';
import type { TScheduledEmail } from '@sendwell/contracts';
import { useState } from 'react';
import { Link } from 'react-router';
import { useFormatDateTime } from '../../app/dates';
import { openSuccessDialog } from '../../app/dialogs';
import { DataTableCard, type TDataTableColumn } from '../../components/DataTable';
import { DateRangeFilter, type TDateRange } from '../../components/DateRangeFilter';
import { DialogActions } from '../../components/DialogActions';
import { FilterForm } from '../../components/FilterForm';
import { PageHeader } from '../../components/PageHeader';
import { historyKeys, SCHEDULED_URL, useLiveHistory, useScheduledAction } from './history.queries';
import { SCHEDULED_ACTIONS, STATUS_LABELS, type TScheduledAction } from './scheduled-actions';

const STATUS_COLORS = { 0: 'blue', 1: 'green', 2: 'gray' } as const;

type TConfirm = { action: TScheduledAction; email: TScheduledEmail } | null;

/** Scheduled emails (spec §2 screen 10) with the actions §4 allows per status. */
export const ScheduledPage = () => {
  const formatDateTime = useFormatDateTime();
  useLiveHistory();
  const act = useScheduledAction();
  // The dates as picked, and as applied by the Filter button (spec §2 screen 10).
  const [dates, setDates] = useState<TDateRange>({});
  const [applied, setApplied] = useState<TDateRange>({});
  const [confirm, setConfirm] = useState<TConfirm>(null);

  const columns: TDataTableColumn<TScheduledEmail>[] = [
    { key: 'from', title: 'From' },
    { key: 'subject', title: 'Subject', sortable: true },
    {
      key: 'status',
      title: 'Status',
      render: (email) => (
        <Badge variant="light" color={STATUS_COLORS[email.status]}>
          {STATUS_LABELS[email.status]}
        </Badge>
      ),
    },
    {
      key: 'deliver_at',
      title: 'Delivery time',
      sortable: true,
      render: (email) => (email.delivery_time ? formatDateTime(email.delivery_time) : '—'),
    },
    { key: 'created_at', title: 'Created', sortable: true, render: (email) => formatDateTime(email.created_at) },
    {
      key: 'actions',
      title: 'Actions',
      render: (email) => (
        <Group gap={4} wrap="nowrap">
          {email.status === 0 && email.send_time === null && (
            <Button
              component={Link}
              to={`/scheduled-mails/edit/${email.id}`}
              size="compact-xs"
              variant="default"
              aria-label={`Edit ${email.subject}`}
            >
              Edit
            </Button>
          )}
          {email.status === 0 && (
            <Button
              size="compact-xs"
              variant="default"
              onClick={() => setConfirm({ action: 'cancel', email })}
              aria-label={`Cancel ${email.subject}`}
            >
              Cancel
            </Button>
          )}
          {email.status === 2 && (
            <Button
              size="compact-xs"
              variant="default"
              onClick={() => setConfirm({ action: 'removeCancel', email })}
              aria-label={`Remove cancel of ${email.subject}`}
            >
              Remove cancel
            </Button>
          )}
          <Button
            size="compact-xs"
            variant="default"
            color="red"
            onClick={() => setConfirm({ action: 'delete', email })}
            aria-label={`Delete ${email.subject}`}
          >
            Delete
          </Button>
        </Group>
      ),
    },
  ];

  return (
    <>
      <PageHeader
        title="Scheduled Emails"
        description="Emails waiting for their delivery time, and those already sent or cancelled."
      />
      <DataTableCard<TScheduledEmail>
        label="Scheduled emails"
        queryKey={historyKeys.scheduled}
        url={SCHEDULED_URL}
        columns={columns}
        rowLabel={(email) => email.subject}
        defaultSort={{ column: 'created_at', order: 'desc' }}
        filters={applied}
        toolbar={
          <FilterForm label="Filter scheduled emails" onApply={() => setApplied(dates)}>
            <DateRangeFilter size="xs" value={dates} onChange={setDates} />
          </FilterForm>
        }
        emptyText={
          <Stack gap={4} align="center" py="md">
            <Text fw={600}>No data found.</Text>
            <Text size="sm" c="dimmed">
              Choose a delivery time on Send Email to schedule one.
            </Text>
          </Stack>
        }
      />
      <Modal
        opened={confirm !== null}
        onClose={() => setConfirm(null)}
        title={confirm ? SCHEDULED_ACTIONS[confirm.action].title : ''}
      >
        {confirm && (
          <Stack>
            <Text size="sm">
              “{confirm.email.subject}”: {SCHEDULED_ACTIONS[confirm.action].text}
            </Text>
            <DialogActions onCancel={() => setConfirm(null)} cancelLabel="Back">
              <Button
                color={confirm.action === 'delete' ? 'red.9' : undefined}
                loading={act.isPending}
                onClick={() =>
                  act.mutate(
                    { action: confirm.action, id: confirm.email.id },
                    {
                      onSuccess: ({ message }) => {
                        setConfirm(null);
                        openSuccessDialog(message);
                      },
                    },
                  )
                }
              >
                {SCHEDULED_ACTIONS[confirm.action].button}
              </Button>
            </DialogActions>
          </Stack>
        )}
      </Modal>
    </>
  );
};
