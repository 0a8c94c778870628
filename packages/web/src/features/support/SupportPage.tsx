import { Badge, Button, Group, Modal, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { SEARCH_DEBOUNCE_SHORT_MS, type TTicket, type TTicketPage, ZNewTicket } from '@sendwell/contracts';
import { IconPlus } from '@tabler/icons-react';
import { useState } from 'react';
import { useFormatDateTime } from '../../app/dates';
import { showSuccess } from '../../app/toasts';
import { useZodForm } from '../../app/useZodForm';
import { DataTableCard, type TDataTableColumn } from '../../components/DataTable';
import { DialogActions } from '../../components/DialogActions';
import { FormStack } from '../../components/FormStack';
import { PageHeader } from '../../components/PageHeader';
import { QueryStatus } from '../../components/QueryStatus';
import { TICKETS_URL, ticketKeys, useCreateTicket, useRespond, useTicket } from './support.queries';
import { TicketConversation, TicketStatusBadge } from './TicketConversation';

const NewTicketForm = ({ onClose }: { onClose: () => void }) => {
  const create = useCreateTicket();
  const form = useZodForm(ZNewTicket, {
    initialValues: { subject: '', message: '' },
    onSubmit: (ticket, { fail }) =>
      create.mutate(ticket, {
        onSuccess: ({ message }) => {
          showSuccess(message);
          onClose();
        },
        onError: fail,
      }),
  });
  return (
    <FormStack onSubmit={form.onSubmit} error={form.formError}>
      <TextInput label="Subject" required data-autofocus maxLength={500} {...form.inputProps('subject')} />
      <Textarea label="Message" required autosize minRows={4} maxRows={12} {...form.inputProps('message')} />
      <DialogActions onCancel={onClose} isPending={create.isPending} submitLabel="Create Ticket" />
    </FormStack>
  );
};

const TicketDetails = ({ id }: { id: number }) => {
  const ticket = useTicket(id);
  const respond = useRespond(id);
  if (ticket.isPending || ticket.isError) {
    return <QueryStatus query={ticket} label="Loading the ticket" failed="The ticket could not be loaded." />;
  }
  return (
    <TicketConversation
      ticket={ticket.data}
      mine="user"
      isResponding={respond.isPending}
      onRespond={(message, { reset, fail }) => respond.mutate(message, { onSuccess: reset, onError: fail })}
    />
  );
};

/** Spec §2 Support tickets: the user's tickets, a create modal and a details modal. */
export const SupportPage = () => {
  const formatDateTime = useFormatDateTime();
  const [isCreating, setCreating] = useState(false);
  const [openId, setOpenId] = useState<number | null>(null);
  const [openSubject, setOpenSubject] = useState('');

  const open = (ticket: TTicket) => {
    setOpenSubject(ticket.subject);
    setOpenId(ticket.id);
  };

  const columns: TDataTableColumn<TTicket>[] = [
    {
      key: 'subject',
      title: 'Subject',
      sortable: true,
      render: (ticket) => (
        <Group gap="xs" wrap="nowrap">
          <Button
            variant="subtle"
            size="compact-sm"
            fw={ticket.read ? 400 : 700}
            onClick={() => open(ticket)}
            aria-label={`${ticket.subject}${ticket.read ? '' : ' (new answer)'}`}
          >
            {ticket.subject}
          </Button>
          {!ticket.read && (
            <Badge size="sm" color="red" aria-hidden>
              New
            </Badge>
          )}
        </Group>
      ),
    },
    {
      key: 'date_created',
      title: 'Created',
      sortable: true,
      width: 190,
      render: (ticket) => formatDateTime(ticket.date_created),
    },
    {
      key: 'date_last_response',
      title: 'Last update',
      sortable: true,
      width: 190,
      render: (ticket) =>
        formatDateTime(ticket.active ? ticket.date_last_response : (ticket.date_closed ?? ticket.date_last_response)),
    },
    {
      key: 'active',
      title: 'Status',
      width: 110,
      render: (ticket) => <TicketStatusBadge active={ticket.active} />,
    },
  ];

  return (
    <>
      <PageHeader
        title="Support"
        description="Ask us anything. We answer here, and by email."
        actions={
          <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
            Create New Ticket
          </Button>
        }
      />
      <DataTableCard<TTicket, TTicketPage>
        label="Support tickets"
        queryKey={ticketKeys.list}
        url={TICKETS_URL}
        columns={columns}
        defaultSort={{ column: 'date_last_response', order: 'desc' }}
        onRowClick={open}
        // The support document's debounce (drip document §9: 300 ms outside the campaign list).
        searchDebounceMs={SEARCH_DEBOUNCE_SHORT_MS}
        emptyText={
          <Stack gap={4} align="center" py="md">
            <Text fw={600}>No data found.</Text>
            <Text size="sm" c="dimmed">
              Create one and our team will answer you here.
            </Text>
          </Stack>
        }
      />
      <Modal opened={isCreating} onClose={() => setCreating(false)} title="Create New Ticket" size="lg">
        <NewTicketForm onClose={() => setCreating(false)} />
      </Modal>
      <Modal opened={openId !== null} onClose={() => setOpenId(null)} title={openSubject} size="lg">
        {openId !== null && <TicketDetails id={openId} />}
      </Modal>
    </>
  );
};
