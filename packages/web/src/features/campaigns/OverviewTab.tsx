import { Card, Loader, SimpleGrid, Stack, Text } from '@mantine/core';
import { overviewPercentages } from '@sendwell/contracts';
import { RadialGauge } from '../../components/RadialGauge';
import { useCampaignOverview } from './campaigns.queries';

/** One of the overview's radial gauges (spec §2): a whole-number percentage and its name. */
const Gauge = ({ label, percent, color }: { label: string; percent: number; color: string }) => (
  <Card withBorder>
    <Stack align="center" gap={4}>
      <RadialGauge share={percent / 100} size={120} stroke={12} color={color} label={`${label}: ${percent}%`}>
        <Text fw={700} fz="xl">
          {percent}%
        </Text>
      </RadialGauge>
      <Text fw={600}>{label}</Text>
    </Stack>
  </Card>
);

/** The Overview tab: three gauges and the totals, each with its percentage (spec §4's rule). */
export const OverviewTab = ({ id }: { id: number }) => {
  const overview = useCampaignOverview(id);
  if (!overview.data) return <Loader aria-label="Loading the overview" />;
  const counts = overview.data;
  const percent = overviewPercentages(counts);
  const totals = [
    ['Recipients', counts.recipients, null],
    ['Sent', counts.sent, percent.sent],
    ['Opened', counts.opened, percent.opened],
    ['Clicked', counts.clicked, percent.clicked],
    ['Bounced', counts.bounced, percent.bounced],
    ['Unsubscribed', counts.unsubscribed, percent.unsubscribed],
  ] as const;
  return (
    <Stack>
      <SimpleGrid cols={{ base: 1, sm: 3 }}>
        <Gauge label="Delivered" percent={percent.delivered} color="var(--mantine-color-green-text)" />
        <Gauge label="Opened" percent={percent.opened} color="var(--mantine-color-blue-text)" />
        <Gauge label="Bounced" percent={percent.bounced} color="var(--mantine-color-red-text)" />
      </SimpleGrid>
      <SimpleGrid cols={{ base: 2, sm: 3, lg: 6 }} data-testid="campaign-totals">
        {totals.map(([label, value, share]) => (
          <Card withBorder key={label}>
            <Text size="sm" c="dimmed">
              {label}
            </Text>
            <Text fw={700} fz="xl">
              {value.toLocaleString('en-US')}
            </Text>
            {share !== null && <Text size="sm">{share}%</Text>}
          </Card>
        ))}
      </SimpleGrid>
      {counts.queued > 0 && (
        <Text size="sm" c="dimmed">
          {counts.queued.toLocaleString('en-US')} handed to your sending account and on their way.
        </Text>
      )}
    </Stack>
  );
};
