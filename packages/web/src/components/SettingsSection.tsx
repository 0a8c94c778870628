import { Group, Paper, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';

type TProps = {
  icon?: ReactNode;
  title: string;
  description?: ReactNode;
  children: ReactNode;
};

/** The id of a section's heading, for a form inside it to be named by (titles are unique on a screen). */
export const settingsSectionId = (title: string) => `section-${title.toLowerCase().replace(/\W+/g, '-')}`;

/** One part of a settings screen (profile, signup form, API keys, webhooks): a heading that names the section, what it is for, its form. */
export const SettingsSection = ({ icon, title, description, children }: TProps) => {
  const headingId = settingsSectionId(title);
  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-labelledby={headingId}>
      <Stack gap="md">
        <Stack gap={4}>
          <Group gap="xs">
            {icon}
            <Title order={2} fz="lg" id={headingId}>
              {title}
            </Title>
          </Group>
          {description && (
            <Text size="sm" c="dimmed">
              {description}
            </Text>
          )}
        </Stack>
        {children}
      </Stack>
    </Paper>
  );
};
