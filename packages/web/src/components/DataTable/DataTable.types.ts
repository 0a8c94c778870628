import type { TPaged, TSortOrder } from '@sendwell/contracts';
import type { QueryKey } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import type { TQueryParams } from '../../app/api';

export type TRowId = string | number;

/** A row the server pages: its id keys it (React's key, the selection, the expanded rows). */
export type TTableRow = { id: TRowId };

export type TDataTableSort = { column: string; order: TSortOrder };

export type TDataTableColumn<Row> = {
  /**
   * The field shown when there is no `render`, and the `column` sent to the server when sortable.
   * `'actions'` marks the row's actions: pinned to the right edge while
   * the table scrolls sideways, and behind one button per row on phones.
   */
  key: string;
  title: ReactNode;
  sortable?: boolean;
  render?: (row: Row) => ReactNode;
  width?: number | string;
  align?: 'left' | 'center' | 'right';
  /** The actions column's content is one small control already (a menu button): phones show it as it is. */
  isCompact?: boolean;
};

/** What a toolbar needs to act on the table: bulk actions read the selection, then clear it. */
export type TDataTableContext<Row, Response extends TPaged<Row>> = {
  selectedIds: TRowId[];
  clearSelection: () => void;
  response: Response | undefined;
  refetch: () => void;
};

export type TDataTableProps<Row extends TTableRow, Response extends TPaged<Row> = TPaged<Row>> = {
  /** Prefix of the cache key; the page's query parameters are appended, so invalidating the prefix refreshes every page. */
  queryKey: QueryKey;
  /** A GET endpoint answering `{data, meta}`; or give `fetcher` instead. */
  url?: string;
  fetcher?: (params: TQueryParams, signal: AbortSignal) => Promise<Response>;
  columns: TDataTableColumn<Row>[];
  defaultSort?: TDataTableSort;
  /** Used when the user has not chosen a size yet (localStorage `per_page`). */
  defaultPerPage?: number;
  /** Extra query parameters; changing them goes back to page 1. Empty values are not sent. */
  filters?: TQueryParams;
  searchable?: boolean;
  searchDebounceMs?: number;
  selectable?: boolean;
  /** Rows that cannot be selected show no checkbox (for example suppressions that already have a status). */
  isRowSelectable?: (row: Row) => boolean;
  onSelectionChange?: (ids: TRowId[]) => void;
  /** Rows get an expand toggle when this is given. */
  renderExpanded?: (row: Row) => ReactNode;
  isRowExpandable?: (row: Row) => boolean;
  /**
   * A click anywhere on a row that is not on a control in it (checkbox, button, link). Keep a
   * button or link in the row for the same action, so keyboards can reach it.
   */
  onRowClick?: (row: Row) => void;
  toolbar?: ReactNode | ((context: TDataTableContext<Row, Response>) => ReactNode);
  emptyText?: ReactNode;
  /** Accessible name of the table. */
  label?: string;
  /**
   * What a row is called in its actions button on phones ("Actions for …"); by default the
   * first column's value.
   */
  rowLabel?: (row: Row) => string;
};
