import { Badge, Button, Group, Modal, SegmentedControl, Stack, Text } from '@mantine/core';
import type { TTicket } from '@sendwell/contracts';
import { useState } from 'react';
import { useFormatDateTime } from '../../app/dates';
import { showSuccess } from '../../app/toasts';
import { DataTable, type TDataTableColumn } from '../../components/DataTable';
import { QueryStatus } from '../../components/QueryStatus';
import { TicketConversation, TicketStatusBadge } from '../support/TicketConversation';
import {
  OPERATOR_TICKETS_URL,
  operatorKeys,
  useAnswerTicket,
  useCloseTicket,
  useOperatorTicket,
} from './operator.queries';

type TOperatorTicket = TTicket & { messages_count: number; user_id: number | null };

const TicketPanel = ({ id }: { id: number }) => {
  const ticket = useOperatorTicket(id);
  const answer = useAnswerTicket(id);
  const close = useCloseTicket(id);
  if (ticket.isPending || ticket.isError) {
    return <QueryStatus query={ticket} label="Loading the ticket" failed="The ticket could not be loaded." />;
  }
  return (
    <Stack>
      <TicketConversation
        ticket={ticket.data}
        mine="operator"
        isResponding={answer.isPending}
        onRespond={(message, { reset, fail }) =>
          answer.mutate(message, {
            onSuccess: ({ message: said }) => {
              showSuccess(said, 'Sent');
              reset();
            },
            onError: fail,
          })
        }
      />
      {ticket.data.active && (
        <Group justify="flex-end">
          <Button variant="default" color="red" loading={close.isPending} onClick={() => close.mutate()}>
            Close ticket
          </Button>
        </Group>
      )}
    </Stack>
  );
};

export const TicketsTab = () => {
  const formatDateTime = useFormatDateTime();
  const [status, setStatus] = useState<'active' | 'closed' | 'all'>('active');
  const [open, setOpen] = useState<TOperatorTicket | null>(null);
  const columns: TDataTableColumn<TOperatorTicket>[] = [
    {
      key: 'subject',
      title: 'Subject',
      sortable: true,
      render: (ticket) => (
        <Button variant="subtle" size="compact-sm" onClick={() => setOpen(ticket)}>
          {ticket.subject}
        </Button>
      ),
    },
    { key: 'email', title: 'From' },
    { key: 'messages_count', title: 'Messages', align: 'right' },
    {
      key: 'date_last_response',
      title: 'Last update',
      sortable: true,
      render: (ticket) => formatDateTime(ticket.date_last_response),
    },
    {
      key: 'active',
      title: 'Status',
      render: (ticket) => (
        <Group gap={4}>
          <TicketStatusBadge active={ticket.active} />
          {!ticket.read && (
            <Badge size="sm" color="gray" variant="outline">
              Unread by user
            </Badge>
          )}
        </Group>
      ),
    },
  ];
  return (
    <>
      <DataTable<TOperatorTicket>
        label="Tickets"
        queryKey={operatorKeys.tickets}
        url={OPERATOR_TICKETS_URL}
        columns={columns}
        defaultSort={{ column: 'date_last_response', order: 'desc' }}
        filters={{ status }}
        searchable
        onRowClick={setOpen}
        toolbar={
          <SegmentedControl
            size="xs"
            aria-label="Show"
            value={status}
            onChange={(value) => setStatus(value as typeof status)}
            data={[
              { label: 'Active', value: 'active' },
              { label: 'Closed', value: 'closed' },
              { label: 'All', value: 'all' },
            ]}
          />
        }
        emptyText={<Text c="dimmed">No tickets here.</Text>}
      />
      <Modal
        opened={open !== null}
        onClose={() => setOpen(null)}
        title={open ? `${open.subject} — ${open.email}` : ''}
        size="lg"
      >
        {open && <TicketPanel id={open.id} />}
      </Modal>
    </>
  );
};
