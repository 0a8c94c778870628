import { Badge, Button, Loader, Stack, Table, Text } from '@mantine/core';
import type { TCampaignMember } from '@sendwell/contracts';
import { Fragment, useState } from 'react';
import { useFormatDateTime } from '../../app/dates';
import { PreviewFrame } from '../../components/PreviewFrame';
import { useRecipientHistory } from './campaigns.queries';

const EVENT_COLORS: Record<string, string> = { failed: 'red', queued: 'blue', sent: 'teal' };

/**
 * A recipient's row expanded (spec §2): each message handed over and what became of it; a sent
 * one with its subject and, on request, its text as this recipient got it.
 */
export const RecipientHistory = ({ recipient }: { recipient: TCampaignMember }) => {
  const history = useRecipientHistory(recipient.id);
  const formatDateTime = useFormatDateTime();
  const [shown, setShown] = useState<number | null>(null);
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
          <Fragment key={index}>
            <Table.Tr>
              <Table.Td>
                <Badge variant="light" color={EVENT_COLORS[item.event_type] ?? 'green'}>
                  {item.event_type}
                </Badge>
              </Table.Td>
              <Table.Td>{formatDateTime(item.created_at)}</Table.Td>
              <Table.Td>
                <Stack gap={2} align="flex-start">
                  <span>
                    #{item.order}: {item.subject}
                  </span>
                  {item.message && (
                    <Text size="xs" c="dimmed">
                      {item.message}
                    </Text>
                  )}
                  {item.event_type === 'sent' && item.body && (
                    <Button
                      variant="subtle"
                      size="compact-xs"
                      aria-expanded={shown === index}
                      onClick={() => setShown(shown === index ? null : index)}
                    >
                      {shown === index ? 'Hide the email' : 'Show the email'}
                    </Button>
                  )}
                </Stack>
              </Table.Td>
            </Table.Tr>
            {shown === index && item.body && (
              <Table.Tr>
                <Table.Td colSpan={3}>
                  <PreviewFrame
                    title={`Email ${item.order} as ${recipient.email} got it`}
                    html={item.body}
                    height={240}
                  />
                </Table.Td>
              </Table.Tr>
            )}
          </Fragment>
        ))}
      </Table.Tbody>
    </Table>
  );
};
