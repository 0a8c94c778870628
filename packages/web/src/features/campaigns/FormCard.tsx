import { Button, Group, Paper, Stack } from '@mantine/core';
import type { FormEvent, ReactNode } from 'react';

/** A campaign form in its card (a wizard step, the Settings tab), its submit button last. */
export const FormCard = ({
  label,
  onSubmit,
  isSaving,
  submitLabel,
  children,
}: {
  label: string;
  onSubmit: (event: FormEvent<HTMLFormElement>) => void;
  isSaving: boolean;
  submitLabel: string;
  children: ReactNode;
}) => (
  <form onSubmit={onSubmit} noValidate aria-label={label}>
    <Paper withBorder p="md" radius="md">
      <Stack>
        {children}
        <Group justify="flex-end">
          <Button type="submit" loading={isSaving}>
            {submitLabel}
          </Button>
        </Group>
      </Stack>
    </Paper>
  </form>
);
