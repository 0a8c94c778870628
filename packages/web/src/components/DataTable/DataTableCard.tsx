import { Paper } from '@mantine/core';
import type { TPaged } from '@sendwell/contracts';
import { DataTable } from './DataTable';
import type { TDataTableProps, TTableRow } from './DataTable.types';

/**
 * A table that stands on a page of its own (History, Suppressions, the credit log…), in a
 * bordered card. A table inside a card or a tab already is the plain DataTable.
 */
export const DataTableCard = <Row extends TTableRow, Response extends TPaged<Row> = TPaged<Row>>(
  props: TDataTableProps<Row, Response>,
) => (
  <Paper withBorder p="md">
    <DataTable<Row, Response> {...props} />
  </Paper>
);
