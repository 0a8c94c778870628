import { Paper, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';

type TProps = {
  /** A Tabler icon component (IconServer…), drawn large and dimmed. */
  icon?: (props: { size: number; stroke: number; color: string; 'aria-hidden': boolean }) => ReactNode;
  title: ReactNode;
  /** A line under the title, on what to do about it. */
  children?: ReactNode;
  /** What to do: a button or a link. */
  action?: ReactNode;
  /** 'alert' where the empty state is a failure a screen reader should hear (a list that does not exist). */
  titleRole?: 'alert';
};

/** A screen with nothing to show yet: an icon, what is missing, why, and the way forward. */
export const EmptyState = ({ icon: Icon, title, children, action, titleRole }: TProps) => (
  <Paper withBorder p="xl" radius="md">
    <Stack align="center" gap="sm" ta="center">
      {Icon && <Icon size={40} stroke={1.4} color="var(--mantine-color-dimmed)" aria-hidden />}
      <Text fw={600} role={titleRole}>
        {title}
      </Text>
      {children && (
        <Text c="dimmed" maw={520}>
          {children}
        </Text>
      )}
      {action}
    </Stack>
  </Paper>
);
