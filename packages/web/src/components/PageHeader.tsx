import { Group, Stack, Text, Title } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import type { ReactNode } from 'react';

type TProps = {
  title: string;
  description?: ReactNode;
  actions?: ReactNode;
};

/** Every screen's heading; also names the browser tab after the screen. */
export const PageHeader = ({ title, description, actions }: TProps) => {
  useDocumentTitle(`${title} · Sendwell`);
  return (
    <Group justify="space-between" align="flex-end" gap="md" mb="lg">
      {/* A title or description holding an address (a send's From, a list's address) wraps on a phone. */}
      <Stack gap={4} miw={0} style={{ overflowWrap: 'anywhere' }}>
        <Title order={1} fz="h2">
          {title}
        </Title>
        {description && <Text c="dimmed">{description}</Text>}
      </Stack>
      {actions && <Group gap="xs">{actions}</Group>}
    </Group>
  );
};
