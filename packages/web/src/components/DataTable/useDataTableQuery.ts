import { useDebouncedValue } from '@mantine/hooks';
import { isSearchReady, SEARCH_DEBOUNCE_MS } from '@sendwell/contracts';
import { useState } from 'react';
import type { TQueryParams } from '../../app/api';
import type { TDataTableSort } from './DataTable.types';
import { initialPerPage, storePerPage } from './perPageStorage';

type TOptions = {
  defaultSort?: TDataTableSort;
  defaultPerPage?: number;
  filters?: TQueryParams;
  searchDebounceMs?: number;
};

/**
 * The query a table sends (`page, per_page, column, order, search` and its filters), and the
 * controls that change it. Anything but the page changing sends the table back to page 1.
 */
export const useDataTableQuery = ({ defaultSort, defaultPerPage, filters, searchDebounceMs }: TOptions) => {
  const [perPage, setPerPageState] = useState(() => initialPerPage(defaultPerPage));
  const [sort, setSort] = useState<TDataTableSort | undefined>(defaultSort);

  const [searchText, setSearchText] = useState('');
  const [debouncedSearch, , { flush: flushSearch }] = useDebouncedValue(
    searchText,
    searchDebounceMs ?? SEARCH_DEBOUNCE_MS,
  );
  // Keeps the last value worth sending: typing a third character searches, deleting back to
  // two keeps the previous results instead of firing a request the server would treat as noise.
  const [search, setSearch] = useState('');
  const readySearch = debouncedSearch.trim();
  if (isSearchReady(readySearch) && readySearch !== search) setSearch(readySearch);

  const resetKey = JSON.stringify([perPage, sort, search, filters ?? {}]);
  const [pageState, setPageState] = useState({ resetKey, page: 1 });
  const page = pageState.resetKey === resetKey ? pageState.page : 1;

  const params: TQueryParams = {
    ...filters,
    page,
    per_page: perPage,
    column: sort?.column,
    order: sort?.order,
    search: search || undefined,
  };

  return {
    params,
    /** Changes whenever the set of rows could change; selections and expansions do not survive it. */
    viewKey: `${resetKey}:${page}`,
    page,
    setPage: (next: number) => setPageState({ resetKey, page: next }),
    perPage,
    setPerPage: (size: number) => {
      storePerPage(size);
      setPerPageState(size);
    },
    sort,
    toggleSort: (column: string) =>
      setSort((current) =>
        current?.column === column
          ? { column, order: current.order === 'asc' ? 'desc' : 'asc' }
          : { column, order: 'asc' },
      ),
    searchText,
    setSearchText,
    /** Enter in the search box: no need to wait out the debounce. */
    submitSearch: flushSearch,
    isSearchIncomplete: !isSearchReady(searchText),
  };
};
