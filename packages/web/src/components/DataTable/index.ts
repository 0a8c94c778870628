export { DataTable } from './DataTable';
export type {
  TDataTableColumn,
  TDataTableContext,
  TDataTableProps,
  TDataTableSort,
  TRowId,
  TTableRow,
} from './DataTable.types';
export { DataTableCard } from './DataTableCard';
