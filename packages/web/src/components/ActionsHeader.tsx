import { Table, VisuallyHidden } from '@mantine/core';

/** The head of a table's actions column: blank on screen, named for a screen reader's column list. */
export const ActionsHeader = () => (
  <Table.Th>
    <VisuallyHidden>Actions</VisuallyHidden>
  </Table.Th>
);
