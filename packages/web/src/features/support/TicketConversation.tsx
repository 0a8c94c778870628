import { Alert, Badge, Box, Button, Group, Paper, Stack, Text, Textarea } from '@mantine/core';
import { type TTicketDetails, ZTicketResponse } from '@sendwell/contracts';
import { useFormatDateTime } from '../../app/dates';
import { useZodForm } from '../../app/useZodForm';
import { FormStack } from '../../components/FormStack';

/** Active or Closed, as the ticket list and the details show it. */
export const TicketStatusBadge = ({ active }: { active: boolean }) =>
  active ? (
    <Badge color="green" variant="light">
      Active
    </Badge>
  ) : (
    <Badge color="gray" variant="light">
      Closed
    </Badge>
  );

/**
 * A ticket's messages as chat bubbles, the writer's own on the right, and a response form
 * while the ticket is active. `side` says whose messages are "mine": the user's on the
 * Support page, the operators' in the operator area.
 */
export const TicketConversation = ({
  ticket,
  mine,
  onRespond,
  isResponding,
}: {
  ticket: TTicketDetails;
  mine: 'user' | 'operator';
  onRespond: (message: string, done: { reset: () => void; fail: (error: unknown) => void }) => void;
  isResponding: boolean;
}) => {
  const formatDateTime = useFormatDateTime();
  const form = useZodForm(ZTicketResponse, {
    initialValues: { message: '' },
    onSubmit: ({ message }, { fail }) => onRespond(message, { reset: () => form.setValues({ message: '' }), fail }),
  });
  return (
    <Stack>
      <Group gap="lg">
        <TicketStatusBadge active={ticket.active} />
        <Text size="sm" c="dimmed">
          Opened {formatDateTime(ticket.date_created)}
        </Text>
        <Text size="sm" c="dimmed">
          {ticket.active
            ? `Last update ${formatDateTime(ticket.date_last_response)}`
            : `Closed ${formatDateTime(ticket.date_closed ?? ticket.date_last_response)}`}
        </Text>
      </Group>
      <Stack gap="sm" role="log" aria-label="Messages">
        {ticket.messages.map((message) => {
          const isMine = message.from === mine;
          return (
            <Box
              key={`${message.date_created}-${message.from}-${message.message.slice(0, 40)}`}
              style={{ alignSelf: isMine ? 'flex-end' : 'flex-start' }}
              maw="85%"
            >
              <Paper
                p="sm"
                radius="lg"
                bg={isMine ? 'blue.0' : 'gray.1'}
                style={{
                  borderBottomRightRadius: isMine ? 4 : undefined,
                  borderBottomLeftRadius: isMine ? undefined : 4,
                }}
              >
                <Text size="xs" fw={600} c="dark.6">
                  {message.from === 'operator' ? 'Support' : mine === 'user' ? 'You' : ticket.email}
                </Text>
                <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
                  {message.message}
                </Text>
                <Text size="xs" c="dark.4" ta="right">
                  {formatDateTime(message.date_created)}
                </Text>
              </Paper>
            </Box>
          );
        })}
      </Stack>
      {ticket.active ? (
        <FormStack onSubmit={form.onSubmit} error={form.formError} gap="xs">
          <Textarea label="Your response" autosize minRows={3} maxRows={10} {...form.inputProps('message')} />
          <Group justify="flex-end">
            <Button type="submit" loading={isResponding}>
              Send
            </Button>
          </Group>
        </FormStack>
      ) : (
        <Alert color="gray">This ticket is closed.</Alert>
      )}
    </Stack>
  );
};
