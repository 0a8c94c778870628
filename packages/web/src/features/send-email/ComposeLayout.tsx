import { Box, Grid, Group, Paper, Stack, ThemeIcon, Title } from '@mantine/core';
import type { FormEvent, ReactNode } from 'react';

const sectionId = (title: string) => `compose-section-${title.toLowerCase().replace(/\W+/g, '-')}`;

/** One part of a compose form (From, To, Message…): a card named by its heading. */
export const ComposeSection = ({ icon, title, children }: { icon?: ReactNode; title: string; children: ReactNode }) => (
  <Paper withBorder p="md" radius="md" component="section" aria-labelledby={sectionId(title)}>
    <Group gap="xs" mb="sm">
      {icon && (
        <ThemeIcon variant="light" size="md" radius="md" aria-hidden>
          {icon}
        </ThemeIcon>
      )}
      <Title order={2} fz="md" id={sectionId(title)}>
        {title}
      </Title>
    </Group>
    {children}
  </Paper>
);

/**
 * A form that composes an email (Send Email, the spam test): its sections on the left and the
 * email's preview beside them, staying in view while the sections scroll (below them on
 * narrow screens). The browser's own checks are off: each field shows the form's message.
 */
export const ComposeForm = ({
  label,
  onSubmit,
  preview,
  children,
}: {
  label: string;
  onSubmit: (event: FormEvent<HTMLFormElement>) => void;
  preview: ReactNode;
  children: ReactNode;
}) => (
  <form onSubmit={onSubmit} noValidate aria-label={label}>
    <Grid gap="lg">
      <Grid.Col span={{ base: 12, lg: 7 }}>
        <Stack gap="md">{children}</Stack>
      </Grid.Col>
      <Grid.Col span={{ base: 12, lg: 5 }}>
        <Box pos={{ lg: 'sticky' }} top={16}>
          {preview}
        </Box>
      </Grid.Col>
    </Grid>
  </form>
);
