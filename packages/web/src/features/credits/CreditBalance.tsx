import { Group, Text, Tooltip } from '@mantine/core';
import { usableCredit } from '@sendwell/contracts';
import { IconCoins } from '@tabler/icons-react';
import { formatCredits } from './credits.format';
import { useCreditBalance } from './useCreditBalance';

export const CreditBalance = () => {
  const balance = useCreditBalance();
  return (
    <Tooltip
      label={
        balance === null
          ? 'Your balance appears here once it is known'
          : `Credits available: ${formatCredits(balance.totalCredit)} in total, ${formatCredits(balance.usedCredit)} used`
      }
    >
      <Group gap={6} wrap="nowrap" visibleFrom="xs">
        <IconCoins size={18} stroke={1.6} aria-hidden />
        <Text size="sm" c="dimmed">
          Credits
        </Text>
        <Text size="sm" fw={600} data-testid="credit-balance">
          {balance === null ? '—' : formatCredits(usableCredit(balance))}
        </Text>
      </Group>
    </Tooltip>
  );
};
