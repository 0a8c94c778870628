import { List, type MantineSize, Text, ThemeIcon } from '@mantine/core';
import type { TPreSendItem } from '@sendwell/contracts';
import { IconAlertTriangle, IconCheck, IconInfoCircle, IconX } from '@tabler/icons-react';

/** How a check's status looks, wherever checks are listed (the editor's message checks, the pre-send checklist). */
export const CHECK_LOOK: Record<TPreSendItem['status'], { color: string; label: string; icon: typeof IconCheck }> = {
  pass: { color: 'green', label: 'Good', icon: IconCheck },
  info: { color: 'blue', label: 'Note', icon: IconInfoCircle },
  warn: { color: 'yellow', label: 'Check', icon: IconAlertTriangle },
  fail: { color: 'red', label: 'Problem', icon: IconX },
};

/** A check's status as a small round icon, named for screen readers ('Good', 'Problem'…). */
export const CheckStatusIcon = ({ status }: { status: TPreSendItem['status'] }) => {
  const { color, icon: Icon, label } = CHECK_LOOK[status];
  return (
    <ThemeIcon color={color} variant="light" size="sm" radius="xl" aria-label={label} role="img">
      <Icon size={14} aria-hidden />
    </ThemeIcon>
  );
};

/** One check in a list: its status, what was checked, what was found, and what to do about it. */
export const CheckItem = ({ item, size = 'sm' }: { item: TPreSendItem; size?: MantineSize }) => (
  <List.Item icon={<CheckStatusIcon status={item.status} />}>
    <Text size="sm" fw={500} component="span">
      {item.title}
    </Text>
    <Text size={size} style={{ overflowWrap: 'anywhere' }}>
      {item.detail}
    </Text>
    {item.advice && (
      <Text size={size} c="dark.4">
        What to do: {item.advice}
      </Text>
    )}
  </List.Item>
);
