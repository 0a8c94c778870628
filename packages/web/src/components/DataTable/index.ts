export { DataTable } from './DataTable';
export type { TDataTableColumn, TDataTableContext, TDataTableProps, TDataTableSort, TRowId } from './DataTable.types';
