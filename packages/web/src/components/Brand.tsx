import { Group, Text, ThemeIcon } from '@mantine/core';
import { IconSend } from '@tabler/icons-react';

export const Brand = () => (
  <Group gap={8} wrap="nowrap">
    <ThemeIcon size={30} radius="md" variant="filled" aria-hidden>
      <IconSend size={18} stroke={1.8} />
    </ThemeIcon>
    <Text fw={700} fz="lg" lts={-0.2}>
      Sendwell
    </Text>
  </Group>
);
