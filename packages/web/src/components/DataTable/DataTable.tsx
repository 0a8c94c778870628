import {
  ActionIcon,
  Box,
  Button,
  Checkbox,
  CloseButton,
  Group,
  NativeSelect,
  Progress,
  Stack,
  Table,
  Text,
  TextInput,
  VisuallyHidden,
} from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { PAGE_SIZES, type TPaged } from '@sendwell/contracts';
import { IconChevronDown, IconChevronRight, IconRefresh, IconSearch } from '@tabler/icons-react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { type CSSProperties, Fragment, type ReactNode, useEffect, useEffectEvent, useState } from 'react';
import { api } from '../../app/api';
import { TableScroller } from '../TableScroller';
import type { TDataTableColumn, TDataTableProps, TRowId, TTableRow } from './DataTable.types';
import { DataTablePager } from './DataTablePager';
import { RowActions } from './RowActions';
import { SortableHeader } from './SortableHeader';
import { useDataTableQuery } from './useDataTableQuery';
import { useDelayedFlag } from './useDelayedFlag';

/** A screen's own default (the spec's campaign member view uses 2) joins the standard sizes. */
const pageSizeOptions = (current: number): string[] =>
  [...new Set([...PAGE_SIZES, current])].sort((a, b) => a - b).map(String);

/** Fast answers should not flash a progress bar; slow ones should not look frozen. */
const LOADING_INDICATOR_DELAY_MS = 200;

/** Controls in a row keep their own click; the row's click is for the rest of it. */
const isOnControl = (target: EventTarget): boolean =>
  target instanceof Element && target.closest('button, a, input, label, select, textarea') !== null;

const renderCell = <Row,>(row: Row, column: TDataTableColumn<Row>): ReactNode => {
  if (column.render) return column.render(row);
  const value = (row as Record<string, unknown>)[column.key];
  return value === null || value === undefined ? '' : String(value);
};

/** A table cell's side padding (Mantine's Table). */
const CELL_PADDING_X = 'var(--table-horizontal-spacing, var(--mantine-spacing-xs))';

/** The key that marks a row's actions column. */
const ACTIONS_COLUMN = 'actions';

/** Mantine's `sm` breakpoint: below it the screen is a phone's, and row actions go behind one button. */
const PHONE_QUERY = '(max-width: 47.99em)';

/** The actions column stays on screen while the rest scrolls under it (its look: TableScroller). */
const pinnedCell = (isSelected = false): CSSProperties => ({
  position: 'sticky',
  right: 0,
  zIndex: 1,
  background: isSelected ? 'var(--pinned-column-selected-bg, none)' : 'var(--pinned-column-bg, none)',
  boxShadow: 'var(--pinned-column-edge, none)',
});

/** The first column's own value names a row ("Actions for ann@example.com"), or its place on the page. */
const defaultRowLabel = <Row,>(row: Row, columns: TDataTableColumn<Row>[], index: number): string => {
  const first = columns.find((column) => column.key !== ACTIONS_COLUMN);
  const value = first ? (row as Record<string, unknown>)[first.key] : undefined;
  return typeof value === 'string' || typeof value === 'number' ? String(value) : `row ${index + 1}`;
};

/**
 * The one table every list screen uses: server-side paging, sorting and search with the spec's
 * shared behaviour (§2 "All tables share paging", §9 page sizes and search rules). A failed fetch
 * empties the table with the spec's 'No data found.' rather than an error dialog, says the
 * entries could not be loaded, and offers Try again.
 */
export const DataTable = <Row extends TTableRow, Response extends TPaged<Row> = TPaged<Row>>({
  queryKey,
  url,
  fetcher,
  columns,
  defaultSort,
  defaultPerPage,
  filters,
  searchable = true,
  searchDebounceMs,
  selectable = false,
  isRowSelectable,
  onSelectionChange,
  renderExpanded,
  isRowExpandable,
  onRowClick,
  toolbar,
  emptyText = 'No data found.',
  label,
  rowLabel,
}: TDataTableProps<Row, Response>) => {
  const table = useDataTableQuery({ defaultSort, defaultPerPage, filters, searchDebounceMs });
  const isPhone = useMediaQuery(PHONE_QUERY) ?? false;

  const query = useQuery({
    queryKey: [...queryKey, table.params],
    queryFn: ({ signal }) => {
      if (fetcher) return fetcher(table.params, signal);
      if (!url) throw new Error('DataTable needs a url or a fetcher.');
      return api.get<Response>(url, table.params, signal);
    },
    placeholderData: keepPreviousData,
    meta: { reportErrors: false },
  });

  const response = query.isError ? undefined : query.data;
  const rows = response?.data ?? [];
  const meta = response?.meta;
  const lastPage = meta?.last_page ?? 1;
  const isLoadingVisible = useDelayedFlag(query.isFetching, LOADING_INDICATOR_DELAY_MS);

  // Rows deleted elsewhere can leave the table past its last page; show the last one that exists.
  const { setPage } = table;
  useEffect(() => {
    if (meta && !query.isPlaceholderData && meta.total > 0 && table.page > meta.last_page) setPage(meta.last_page);
  }, [meta, query.isPlaceholderData, table.page, setPage]);

  const [selection, setSelection] = useState<{ viewKey: string; ids: TRowId[] }>({ viewKey: '', ids: [] });
  const [expanded, setExpanded] = useState<{ viewKey: string; ids: TRowId[] }>({ viewKey: '', ids: [] });
  const selectableIds = selectable ? rows.filter((row) => isRowSelectable?.(row) ?? true).map((row) => row.id) : [];
  // A selection belongs to the rows on screen: another page, sort, search or size starts over, and
  // rows gone after a refetch drop out of it.
  const selectedIds =
    selection.viewKey === table.viewKey ? selection.ids.filter((id) => selectableIds.includes(id)) : [];
  const expandedIds = expanded.viewKey === table.viewKey ? expanded.ids : [];

  // The array is new on every render; its signature changes only when the selection does.
  const selectionSignature = selectedIds.join(',');
  const notifySelection = useEffectEvent((_signature: string) => onSelectionChange?.(selectedIds));
  useEffect(() => notifySelection(selectionSignature), [selectionSignature]);

  const setSelected = (ids: TRowId[]) => setSelection({ viewKey: table.viewKey, ids });
  const toggleRow = (id: TRowId) =>
    setSelected(selectedIds.includes(id) ? selectedIds.filter((other) => other !== id) : [...selectedIds, id]);
  const isAllSelected = selectableIds.length > 0 && selectedIds.length === selectableIds.length;
  const toggleExpanded = (id: TRowId) =>
    setExpanded({
      viewKey: table.viewKey,
      ids: expandedIds.includes(id) ? expandedIds.filter((other) => other !== id) : [...expandedIds, id],
    });

  const columnCount = columns.length + (selectable ? 1 : 0) + (renderExpanded ? 1 : 0);
  const context = {
    selectedIds,
    clearSelection: () => setSelected([]),
    response,
    refetch: () => void query.refetch(),
  };

  return (
    <Stack gap="sm">
      {(toolbar || searchable) && (
        <Group justify="space-between" align="flex-start" gap="sm">
          <Group gap="xs">{typeof toolbar === 'function' ? toolbar(context) : toolbar}</Group>
          {searchable && (
            <TextInput
              type="search"
              placeholder="Search…"
              aria-label="Search"
              w={{ base: '100%', xs: 260 }}
              leftSection={<IconSearch size={16} aria-hidden />}
              value={table.searchText}
              onChange={(event) => table.setSearchText(event.currentTarget.value)}
              onKeyDown={(event) => {
                if (event.key === 'Enter') table.submitSearch();
              }}
              rightSection={
                table.searchText ? (
                  <CloseButton size="sm" aria-label="Clear" onClick={() => table.setSearchText('')} />
                ) : null
              }
              description={table.isSearchIncomplete ? 'Type at least 3 characters to search.' : undefined}
              inputWrapperOrder={['label', 'input', 'description', 'error']}
            />
          )}
        </Group>
      )}

      <Box pos="relative">
        {isLoadingVisible && (
          <Progress
            value={100}
            animated
            size={3}
            radius={0}
            pos="absolute"
            top={0}
            left={0}
            right={0}
            style={{ zIndex: 1 }}
            aria-label="Loading"
          />
        )}
        <TableScroller label={label}>
          <Table
            data-testid="data-table"
            aria-label={label}
            aria-busy={query.isFetching}
            highlightOnHover
            verticalSpacing="sm"
            style={{ opacity: isLoadingVisible && query.isPlaceholderData ? 0.6 : 1, transition: 'opacity 150ms' }}
          >
            <Table.Thead>
              <Table.Tr>
                {renderExpanded && (
                  <Table.Th w={40}>
                    <VisuallyHidden>Details</VisuallyHidden>
                  </Table.Th>
                )}
                {selectable && (
                  <Table.Th w={40}>
                    <Checkbox
                      aria-label="Select all"
                      checked={isAllSelected}
                      indeterminate={selectedIds.length > 0 && !isAllSelected}
                      disabled={selectableIds.length === 0}
                      onChange={() => setSelected(isAllSelected ? [] : selectableIds)}
                    />
                  </Table.Th>
                )}
                {columns.map((column) =>
                  column.sortable ? (
                    <SortableHeader
                      key={column.key}
                      column={column.key}
                      title={column.title}
                      sort={table.sort}
                      onSort={table.toggleSort}
                      width={column.width}
                    />
                  ) : (
                    <Table.Th
                      key={column.key}
                      w={column.width}
                      ta={column.align}
                      style={column.key === ACTIONS_COLUMN ? pinnedCell() : undefined}
                    >
                      {column.title}
                    </Table.Th>
                  ),
                )}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.length === 0 && (
                <Table.Tr>
                  <Table.Td colSpan={columnCount}>
                    {query.isError && !query.isFetching ? (
                      // A failed load: the spec's words, what happened and a way to ask again.
                      <Stack gap={6} align="center" py="lg" data-testid="data-table-failed">
                        <Text fw={600}>No data found.</Text>
                        <Text size="sm" c="dimmed">
                          The entries could not be loaded.
                        </Text>
                        <Button
                          size="xs"
                          variant="light"
                          leftSection={<IconRefresh size={14} aria-hidden />}
                          onClick={() => void query.refetch()}
                        >
                          Try again
                        </Button>
                      </Stack>
                    ) : (
                      <Text c="dimmed" ta="center" py="xl" component="div">
                        {query.isPending || query.isError ? (isLoadingVisible ? 'Loading…' : '\u00a0') : emptyText}
                      </Text>
                    )}
                  </Table.Td>
                </Table.Tr>
              )}
              {rows.map((row, index) => {
                const id = row.id;
                const isExpanded = expandedIds.includes(id);
                const canExpand = renderExpanded && (isRowExpandable?.(row) ?? true);
                const isSelected = selectedIds.includes(id);
                return (
                  <Fragment key={id}>
                    <Table.Tr
                      bg={isSelected ? 'var(--mantine-primary-color-light)' : undefined}
                      style={onRowClick ? { cursor: 'pointer' } : undefined}
                      onClick={
                        onRowClick
                          ? (event) => {
                              if (!isOnControl(event.target)) onRowClick(row);
                            }
                          : undefined
                      }
                    >
                      {renderExpanded && (
                        <Table.Td>
                          {canExpand && (
                            <ActionIcon
                              variant="subtle"
                              color="gray"
                              aria-label="Expand row"
                              aria-expanded={isExpanded}
                              onClick={() => toggleExpanded(id)}
                            >
                              {isExpanded ? (
                                <IconChevronDown size={16} aria-hidden />
                              ) : (
                                <IconChevronRight size={16} aria-hidden />
                              )}
                            </ActionIcon>
                          )}
                        </Table.Td>
                      )}
                      {selectable && (
                        <Table.Td>
                          {selectableIds.includes(id) && (
                            <Checkbox aria-label="Select row" checked={isSelected} onChange={() => toggleRow(id)} />
                          )}
                        </Table.Td>
                      )}
                      {columns.map((column) => {
                        if (column.key !== ACTIONS_COLUMN) {
                          return (
                            <Table.Td key={column.key} ta={column.align}>
                              {renderCell(row, column)}
                            </Table.Td>
                          );
                        }
                        const actions = renderCell(row, column);
                        const hasActions = actions !== null && actions !== undefined && actions !== false;
                        return (
                          <Table.Td key={column.key} ta={column.align} style={pinnedCell(isSelected)}>
                            {isPhone && hasActions && !column.isCompact ? (
                              <RowActions label={rowLabel?.(row) ?? defaultRowLabel(row, columns, index)}>
                                {actions}
                              </RowActions>
                            ) : (
                              actions
                            )}
                          </Table.Td>
                        );
                      })}
                    </Table.Tr>
                    {canExpand && isExpanded && (
                      <Table.Tr>
                        <Table.Td colSpan={columnCount} bg="var(--mantine-color-gray-0)">
                          {/* The details stay in view, as wide as the visible part, while the row scrolls sideways. */}
                          <Box
                            style={{
                              position: 'sticky',
                              left: CELL_PADDING_X,
                              maxWidth: `calc(var(--table-scroller-width, 100000px) - 2 * ${CELL_PADDING_X})`,
                            }}
                          >
                            {renderExpanded(row)}
                          </Box>
                        </Table.Td>
                      </Table.Tr>
                    )}
                  </Fragment>
                );
              })}
            </Table.Tbody>
          </Table>
        </TableScroller>
      </Box>

      <Group justify="space-between" gap="sm">
        <Group gap="md">
          {(response || query.isError) && (
            <Text size="sm" c="dimmed" aria-live="polite">
              Displaying {rows.length} of {meta?.total ?? 0} entries.
            </Text>
          )}
          <Group gap={6}>
            <Text size="sm" c="dimmed" aria-hidden>
              Rows per page
            </Text>
            <NativeSelect
              aria-label="Rows per page"
              size="xs"
              data={pageSizeOptions(table.perPage)}
              value={String(table.perPage)}
              onChange={(event) => table.setPerPage(Number(event.currentTarget.value))}
            />
          </Group>
        </Group>
        <DataTablePager page={table.page} lastPage={lastPage} onChange={table.setPage} />
      </Group>
    </Stack>
  );
};
