import { Badge, Loader, Table, Text } from '@mantine/core';
import type { TCampaignMember } from '@sendwell/contracts';
import { useFormatDateTime } from '../../app/dates';
import { useRecipientHistory } from './campaigns.queries';

/** A recipient's row expanded (spec §2): each message handed over and what became of it. */
export const RecipientHistory = ({ recipient }: { recipient: TCampaignMember }) => {
  const history = useRecipientHistory(recipient.id);
  const formatDateTime = useFormatDateTime();
  if (!history.data) return <Loader size="sm" aria-label="Loading the history" />;
  if (history.data.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        Nothing sent yet
        {recipient.due_at ? `; email ${recipient.next_position} is due ${formatDateTime(recipient.due_at)}.` : '.'}
      </Text>
    );
  }
  return (
    <Table fz="sm" aria-label={`History of ${recipient.email}`}>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Event</Table.Th>
          <Table.Th>When</Table.Th>
          <Table.Th>Email</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {history.data.map((item, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: events in order
          <Table.Tr key={index}>
            <Table.Td>
              <Badge
                variant="light"
                color={item.event_type === 'failed' ? 'red' : item.event_type === 'queued' ? 'blue' : 'green'}
              >
                {item.event_type}
              </Badge>
            </Table.Td>
            <Table.Td>{formatDateTime(item.created_at)}</Table.Td>
            <Table.Td>
              #{item.order}: {item.subject}
              {item.message && (
                <Text size="xs" c="dimmed">
                  {item.message}
                </Text>
              )}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
};
