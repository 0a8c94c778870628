import { Button, Group } from '@mantine/core';
import type { ReactNode } from 'react';

/**
 * Filters over a table that apply together, when the user presses Filter (or Enter in one of
 * them), rather than on each change: a date range half typed must not reload the table.
 */
export const FilterForm = ({
  label,
  onApply,
  children,
}: {
  label: string;
  onApply: () => void;
  children: ReactNode;
}) => (
  <form
    aria-label={label}
    onSubmit={(event) => {
      event.preventDefault();
      onApply();
    }}
  >
    <Group gap="xs" align="flex-end">
      {children}
      <Button size="xs" type="submit" variant="default">
        Filter
      </Button>
    </Group>
  </form>
);
