import { Group, Progress, Stack, Text } from '@mantine/core';
import type { TSendAfterVerification } from '@sendwell/contracts';
import { verifiedPercent } from './waiting-sends.queries';

/** The upsell's progress bar (spec §2 screen 2): the lists' addresses checked, and the verdicts so far. */
export const VerificationProgress = ({ waiting }: { waiting: TSendAfterVerification }) => {
  const { checked, total, valid, invalid, unknown } = waiting.verification;
  const percent = verifiedPercent(waiting);
  return (
    <Stack gap={6}>
      <Progress value={percent} size="lg" animated={percent < 100} aria-label="Verification of the lists" />
      <Group justify="space-between" gap="xs">
        <Text size="sm" data-testid="verification-checked">
          {checked.toLocaleString('en-US')} of {total.toLocaleString('en-US')} addresses checked
        </Text>
        <Text size="sm" c="dimmed" data-testid="verification-verdicts">
          {valid.toLocaleString('en-US')} valid · {invalid.toLocaleString('en-US')} invalid ·{' '}
          {unknown.toLocaleString('en-US')} unknown
        </Text>
      </Group>
    </Stack>
  );
};
