import { Box, Tooltip } from '@mantine/core';
import { type TRealtimeState, useRealtimeState } from '../realtime';

const describe: Record<TRealtimeState, { label: string; color: string }> = {
  open: { label: 'Live updates on', color: 'var(--mantine-color-green-6)' },
  connecting: { label: 'Connecting for live updates…', color: 'var(--mantine-color-yellow-5)' },
  closed: { label: 'Live updates off; reload the page to try again', color: 'var(--mantine-color-gray-5)' },
};

export const RealtimeStatus = () => {
  const state = useRealtimeState();
  const { label, color } = describe[state];
  return (
    <Tooltip label={label}>
      <Box
        role="status"
        aria-label={label}
        data-testid="realtime-status"
        data-state={state}
        w={10}
        h={10}
        bg={color}
        style={{ borderRadius: '50%', flexShrink: 0 }}
      />
    </Tooltip>
  );
};
