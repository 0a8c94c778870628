import { Paper, SimpleGrid, Text } from '@mantine/core';
import type { TSendCounts } from '@sendwell/contracts';

/**
 * A send's figures as every screen counts them (R33, contracts `figures.ts`): History's
 * expanded row and the send's details show the same. SMTP and Gmail report what the server
 * accepted, so Delivered is left out for them.
 */
const FIGURES = [
  ['recipients_count', 'Recipients'],
  ['sent_count', 'Sent'],
  ['delivered_count', 'Delivered'],
  ['failed_count', 'Failed'],
  ['opened_count', 'Opened'],
  ['clicked_count', 'Clicked'],
  ['complained_count', 'Complained'],
  ['unsubscribed_count', 'Unsubscribed'],
  ['unknown_count', 'Unknown'],
] as const;

export const SendFigures = ({
  counts,
  reportsDelivery,
}: {
  counts: TSendCounts | undefined;
  reportsDelivery: boolean;
}) => (
  <SimpleGrid cols={{ base: 2, sm: 3, md: 9 }} spacing="xs" aria-label="Statistics">
    {FIGURES.filter(([key]) => reportsDelivery || key !== 'delivered_count').map(([key, label]) => (
      <Paper key={key} withBorder p="xs">
        <Text size="xs" c="dark.4">
          {label}
        </Text>
        <Text fw={700}>{counts ? counts[key].toLocaleString('en-US') : '…'}</Text>
        {key === 'failed_count' && counts && counts.failed_count > 0 && (
          <Text size="xs" c="dark.4">
            {counts.bounced_hard_count} hard, {counts.bounced_soft_count} soft
          </Text>
        )}
      </Paper>
    ))}
  </SimpleGrid>
);
