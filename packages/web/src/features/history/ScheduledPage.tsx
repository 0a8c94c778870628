import { Alert, Badge, Button, Group, Modal, Paper, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { type TScheduledEmail, ZScheduledEdit } from '@sendwell/contracts';
import { IconAlertCircle } from '@tabler/icons-react';
import { useState } from 'react';
import { useFormatDateTime } from '../../app/dates';
import { useZodForm } from '../../app/useZodForm';
import { DataTable, type TDataTableColumn } from '../../components/DataTable';
import { DateRangeFilter, type TDateRange } from '../../components/DateRangeFilter';
import { PageHeader } from '../../components/PageHeader';
import { historyKeys, SCHEDULED_URL, useEditScheduled, useLiveHistory, useScheduledAction } from './history.queries';

const STATUS = {
  0: { label: 'Pending', color: 'blue' },
  1: { label: 'Sent', color: 'green' },
  2: { label: 'Cancelled', color: 'gray' },
} as const;

const success = (message: string) =>
  notifications.show({ color: 'green', title: 'Success!', message, position: 'top-center' });

/** `YYYY-MM-DDTHH:mm` in this browser's zone, for a datetime-local field. */
const toLocalInput = (iso: string | null) => {
  if (!iso) return '';
  const date = new Date(iso);
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
};

/** Edit Scheduled Email: a pending email that has not started; the delivery time is required. */
const EditForm = ({ email, onClose }: { email: TScheduledEmail; onClose: () => void }) => {
  const edit = useEditScheduled(email.id);
  const form = useZodForm(ZScheduledEdit, {
    initialValues: {
      subject: email.subject,
      message: email.content.message_body,
      cc: email.cc,
      bcc: email.bcc,
      reply_to: email.content.reply_to,
      // The browser's datetime-local form (its own zone); sent as an instant.
      delivery_time: toLocalInput(email.delivery_time),
    },
    onSubmit: (body, { fail }) =>
      edit.mutate(
        { ...body, delivery_time: new Date(body.delivery_time).toISOString() },
        {
          onSuccess: ({ message }) => {
            success(message);
            onClose();
          },
          onError: fail,
        },
      ),
  });
  return (
    <form onSubmit={form.onSubmit} noValidate>
      <Stack>
        {form.formError && (
          <Alert color="red" icon={<IconAlertCircle size={18} />}>
            {form.formError}
          </Alert>
        )}
        <TextInput type="datetime-local" label="Delivery time" required {...form.inputProps('delivery_time')} />
        <TextInput label="Subject" required {...form.inputProps('subject')} />
        <Group grow>
          <TextInput label="Cc" {...form.inputProps('cc')} />
          <TextInput label="Bcc" {...form.inputProps('bcc')} />
          <TextInput label="Reply-to" {...form.inputProps('reply_to')} />
        </Group>
        <Textarea label="Message (HTML)" required autosize minRows={6} maxRows={16} {...form.inputProps('message')} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={edit.isPending}>
            Save
          </Button>
        </Group>
      </Stack>
    </form>
  );
};

type TConfirm = { action: 'cancel' | 'removeCancel' | 'delete'; email: TScheduledEmail } | null;

const CONFIRM = {
  cancel: {
    title: 'Cancel this email?',
    text: 'It will not go out. You can remove the cancel later.',
    button: 'Cancel email',
  },
  removeCancel: { title: 'Schedule it again?', text: 'It goes out at its delivery time.', button: 'Remove cancel' },
  delete: {
    title: 'Delete this email?',
    text: 'It disappears from your scheduled emails and history.',
    button: 'Delete',
  },
} as const;

/** Scheduled emails (spec §2 screen 10) with the actions §4 allows per status. */
export const ScheduledPage = () => {
  const formatDateTime = useFormatDateTime();
  useLiveHistory();
  const act = useScheduledAction();
  const [dates, setDates] = useState<TDateRange>({});
  const [editing, setEditing] = useState<TScheduledEmail | null>(null);
  const [confirm, setConfirm] = useState<TConfirm>(null);

  const columns: TDataTableColumn<TScheduledEmail>[] = [
    { key: 'from', title: 'From' },
    { key: 'subject', title: 'Subject', sortable: true },
    {
      key: 'status',
      title: 'Status',
      render: (email) => (
        <Badge variant="light" color={STATUS[email.status].color}>
          {STATUS[email.status].label}
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
              size="compact-xs"
              variant="default"
              onClick={() => setEditing(email)}
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
      <Paper withBorder p="md">
        <DataTable<TScheduledEmail>
          label="Scheduled emails"
          queryKey={historyKeys.scheduled}
          url={SCHEDULED_URL}
          columns={columns}
          rowKey={(email) => email.id}
          rowLabel={(email) => email.subject}
          defaultSort={{ column: 'created_at', order: 'desc' }}
          filters={dates}
          toolbar={<DateRangeFilter size="xs" value={dates} onChange={setDates} />}
          emptyText={
            <Stack gap={4} align="center" py="md">
              <Text fw={600}>No scheduled emails.</Text>
              <Text size="sm" c="dimmed">
                Choose a delivery time on Send Email to schedule one.
              </Text>
            </Stack>
          }
        />
      </Paper>
      <Modal
        opened={editing !== null}
        onClose={() => setEditing(null)}
        title="Edit Scheduled Email"
        centered
        size="xl"
        closeButtonProps={{ 'aria-label': 'Close' }}
      >
        {editing && <EditForm email={editing} onClose={() => setEditing(null)} />}
      </Modal>
      <Modal
        opened={confirm !== null}
        onClose={() => setConfirm(null)}
        title={confirm ? CONFIRM[confirm.action].title : ''}
        centered
        closeButtonProps={{ 'aria-label': 'Close' }}
      >
        {confirm && (
          <Stack>
            <Text size="sm">
              “{confirm.email.subject}”: {CONFIRM[confirm.action].text}
            </Text>
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setConfirm(null)}>
                Back
              </Button>
              <Button
                color={confirm.action === 'delete' ? 'red.9' : undefined}
                loading={act.isPending}
                onClick={() =>
                  act.mutate(
                    { action: confirm.action, id: confirm.email.id },
                    {
                      onSuccess: ({ message }) => {
                        success(message);
                        setConfirm(null);
                      },
                    },
                  )
                }
              >
                {CONFIRM[confirm.action].button}
              </Button>
            </Group>
          </Stack>
        )}
      </Modal>
    </>
  );
};
