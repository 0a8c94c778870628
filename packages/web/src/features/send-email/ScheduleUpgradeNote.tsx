import { Anchor, Text } from '@mantine/core';
import { SEND_MESSAGES } from '@sendwell/contracts';
import { Link } from 'react-router';

/** Why a plan without scheduling cannot pick a delivery time, and where the plans are. */
export const ScheduleUpgradeNote = () => (
  <Text size="sm" c="dimmed">
    {SEND_MESSAGES.scheduleUpgrade}{' '}
    <Anchor component={Link} to="/settings/subscription" size="sm">
      See the plans
    </Anchor>
  </Text>
);
