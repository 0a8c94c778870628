import { pageMeta } from '@sendwell/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, renderWithApp, requestedUrls } from '../../test/render';
import { DataTable } from './DataTable';
import type { TDataTableColumn, TDataTableProps } from './DataTable.types';

type TRow = { id: number; name: string };

const columns: TDataTableColumn<TRow>[] = [{ key: 'name', title: 'Name', sortable: true }];

/** A server holding `total` rows named "Row 1"…"Row N", paging them as asked. */
const serveRows = (total: number) =>
  vi.fn(async (input: RequestInfo | URL) => {
    const url = new URL(String(input), 'http://localhost');
    const page = Number(url.searchParams.get('page') ?? 1);
    const perPage = Number(url.searchParams.get('per_page') ?? 20);
    const first = (page - 1) * perPage;
    const count = Math.max(0, Math.min(perPage, total - first));
    const data = Array.from({ length: count }, (_, index) => ({
      id: first + index + 1,
      name: `Row ${first + index + 1}`,
    }));
    return jsonResponse({ data, meta: pageMeta(total, page, perPage) });
  });

const renderTable = (props: Partial<TDataTableProps<TRow>> = {}) =>
  renderWithApp(<DataTable<TRow> queryKey={['rows']} url="/api/rows" columns={columns} {...props} />);

const lastUrl = (fetchMock: ReturnType<typeof serveRows>) => requestedUrls(fetchMock).at(-1);

describe('DataTable', () => {
  let fetchMock: ReturnType<typeof serveRows>;

  beforeEach(() => {
    fetchMock = serveRows(42);
    vi.stubGlobal('fetch', fetchMock);
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('shows the rows of the first page and how many of the total they are', async () => {
    renderTable({ defaultPerPage: 10 });

    expect(await screen.findByText('Displaying 10 of 42 entries.')).toBeTruthy();
    expect(screen.getByText('Row 1')).toBeTruthy();
    expect(lastUrl(fetchMock)?.searchParams.get('per_page')).toBe('10');
  });

  it('searches only once the box holds three characters, after the debounce', async () => {
    renderTable({ searchDebounceMs: 20 });
    await screen.findByText('Displaying 20 of 42 entries.');
    const search = screen.getByRole('searchbox', { name: 'Search' });

    fireEvent.change(search, { target: { value: 'ro' } });
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(requestedUrls(fetchMock).some((url) => url.searchParams.has('search'))).toBe(false);

    fireEvent.change(search, { target: { value: 'row' } });
    await waitFor(() => expect(lastUrl(fetchMock)?.searchParams.get('search')).toBe('row'));
    expect(lastUrl(fetchMock)?.searchParams.get('page')).toBe('1');
  });

  it('stores the chosen page size under per_page and starts from it next time', async () => {
    const first = renderTable();
    await screen.findByText('Displaying 20 of 42 entries.');

    fireEvent.change(screen.getByRole('combobox', { name: 'Rows per page' }), { target: { value: '50' } });
    await screen.findByText('Displaying 42 of 42 entries.');
    expect(window.localStorage.getItem('per_page')).toBe('50');
    first.unmount();

    fetchMock.mockClear();
    renderTable({ defaultPerPage: 10 });
    await screen.findByText('Displaying 42 of 42 entries.');
    expect(requestedUrls(fetchMock)[0]?.searchParams.get('per_page')).toBe('50');
    expect((screen.getByRole('combobox', { name: 'Rows per page' }) as HTMLSelectElement).value).toBe('50');
  });

  it('ignores a stored page size the tables do not offer', async () => {
    window.localStorage.setItem('per_page', '7');
    renderTable({ defaultPerPage: 15 });

    await screen.findByText('Displaying 15 of 42 entries.');
    expect(lastUrl(fetchMock)?.searchParams.get('per_page')).toBe('15');
  });

  it('says No data found. when there are no rows', async () => {
    vi.stubGlobal('fetch', serveRows(0));
    renderTable();

    expect(await screen.findByText('No data found.')).toBeTruthy();
    expect(screen.getByText('Displaying 0 of 0 entries.')).toBeTruthy();
  });

  it('says No data found. when the fetch fails, that the entries could not be loaded, and tries again', async () => {
    let isDown = true;
    const rows = serveRows(3);
    const failing = vi.fn(async (input: RequestInfo | URL) =>
      isDown ? jsonResponse({ status: false, message: 'Database is down.' }, 500) : rows(input),
    );
    vi.stubGlobal('fetch', failing);
    renderTable();

    const failed = await screen.findByTestId('data-table-failed');
    expect(failed.textContent).toContain('No data found.');
    expect(failed.textContent).toContain('The entries could not be loaded.');
    expect(screen.queryByText('Error!')).toBeNull();
    expect(screen.queryByText('Database is down.')).toBeNull();
    const calls = failing.mock.calls.length;

    isDown = false;
    fireEvent.click(within(failed).getByRole('button', { name: 'Try again' }));
    expect(await screen.findByText('Row 3')).toBeTruthy();
    expect(failing.mock.calls.length).toBe(calls + 1);
    expect(screen.queryByTestId('data-table-failed')).toBeNull();
    expect(screen.getByText('Displaying 3 of 3 entries.')).toBeTruthy();
  });

  it('pages with First, Prev, four numbers either side, Next and Last', async () => {
    fetchMock = serveRows(200);
    vi.stubGlobal('fetch', fetchMock);
    renderTable({ defaultPerPage: 10 });
    await screen.findByText('Row 1');
    const pager = screen.getByRole('navigation', { name: 'Pagination' });
    const numbers = () =>
      within(pager)
        .getAllByRole('button')
        .map((button) => button.textContent)
        .filter((text) => /^\d+$/.test(text ?? ''));

    expect(numbers()).toEqual(['1', '2', '3', '4', '5']);
    expect(within(pager).getByRole('button', { name: 'First' }).hasAttribute('disabled')).toBe(true);
    expect(within(pager).getByRole('button', { name: 'Prev' }).hasAttribute('disabled')).toBe(true);

    fireEvent.click(within(pager).getByRole('button', { name: '5' }));
    await screen.findByText('Row 41');
    expect(numbers()).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9']);
    expect(within(pager).getByRole('button', { name: '5' }).getAttribute('aria-current')).toBe('page');

    fireEvent.click(within(pager).getByRole('button', { name: 'Last' }));
    await screen.findByText('Row 191');
    expect(numbers()).toEqual(['16', '17', '18', '19', '20']);
    expect(within(pager).getByRole('button', { name: 'Next' }).hasAttribute('disabled')).toBe(true);
    expect(lastUrl(fetchMock)?.searchParams.get('page')).toBe('20');
  });

  it('sorts by a header and goes back to the first page', async () => {
    renderTable({ defaultPerPage: 10, defaultSort: { column: 'name', order: 'asc' } });
    await screen.findByText('Row 1');
    fireEvent.click(screen.getByRole('button', { name: '2' }));
    await screen.findByText('Row 11');

    fireEvent.click(screen.getByRole('button', { name: 'Name' }));

    await waitFor(() => expect(lastUrl(fetchMock)?.searchParams.get('order')).toBe('desc'));
    expect(lastUrl(fetchMock)?.searchParams.get('page')).toBe('1');
    expect(screen.getByRole('columnheader', { name: 'Name' }).getAttribute('aria-sort')).toBe('descending');
  });

  it('reports a click on a row, but not one on a control inside it', async () => {
    const onRowClick = vi.fn();
    renderTable({ defaultPerPage: 5, selectable: true, onRowClick });

    fireEvent.click(await screen.findByText('Row 2'));
    expect(onRowClick).toHaveBeenCalledWith({ id: 2, name: 'Row 2' });

    fireEvent.click(screen.getAllByRole('checkbox', { name: 'Select row' })[0] as HTMLElement);
    expect(onRowClick).toHaveBeenCalledTimes(1);
  });

  it('reports the selected rows, all of them from the header checkbox', async () => {
    const onSelectionChange = vi.fn();
    renderTable({ defaultPerPage: 5, selectable: true, onSelectionChange });
    await screen.findByText('Row 1');

    fireEvent.click(screen.getAllByRole('checkbox', { name: 'Select row' })[1] as HTMLElement);
    await waitFor(() => expect(onSelectionChange).toHaveBeenLastCalledWith([2]));

    fireEvent.click(screen.getByRole('checkbox', { name: 'Select all' }));
    await waitFor(() => expect(onSelectionChange).toHaveBeenLastCalledWith([1, 2, 3, 4, 5]));
  });

  describe('on a phone', () => {
    const phoneMatchMedia = (query: string) => ({
      matches: query.includes('max-width'),
      media: query,
      onchange: null,
      addListener: () => {},
      removeListener: () => {},
      addEventListener: () => {},
      removeEventListener: () => {},
      dispatchEvent: () => false,
    });
    let desktopMatchMedia: typeof window.matchMedia;
    beforeEach(() => {
      desktopMatchMedia = window.matchMedia;
      window.matchMedia = phoneMatchMedia as unknown as typeof window.matchMedia;
    });
    afterEach(() => {
      window.matchMedia = desktopMatchMedia;
    });

    it("keeps a row's actions behind one button named after the row; choosing one runs it and closes the menu", async () => {
      const onDelete = vi.fn();
      const withActions: TDataTableColumn<TRow>[] = [
        ...columns,
        {
          key: 'actions',
          title: 'Actions',
          render: (row) => (
            <button type="button" onClick={() => onDelete(row.id)}>
              Delete {row.name}
            </button>
          ),
        },
      ];
      renderTable({ defaultPerPage: 5, columns: withActions });
      await screen.findByText('Row 1');
      expect(screen.queryByRole('button', { name: 'Delete Row 2' })).toBeNull();

      fireEvent.click(screen.getByRole('button', { name: 'Actions for Row 2' }));
      const menu = await screen.findByRole('dialog', { name: 'Actions for Row 2' });
      fireEvent.click(within(menu).getByRole('button', { name: 'Delete Row 2' }));
      expect(onDelete).toHaveBeenCalledWith(2);
      await waitFor(() => expect(screen.queryByRole('button', { name: 'Delete Row 2' })).toBeNull());
    });

    it('shows a row without actions no button, and a compact actions column as it is', async () => {
      const withActions: TDataTableColumn<TRow>[] = [
        ...columns,
        {
          key: 'actions',
          title: 'Actions',
          isCompact: true,
          render: (row) => (row.id === 1 ? null : <button type="button">Menu of {row.name}</button>),
        },
      ];
      renderTable({ defaultPerPage: 5, columns: withActions });
      await screen.findByText('Row 1');
      expect(screen.getByRole('button', { name: 'Menu of Row 2' })).toBeTruthy();
      expect(screen.queryByRole('button', { name: /^Actions for/ })).toBeNull();
    });
  });

  it('says when it scrolls sideways, and takes the focus then so keys can scroll it', async () => {
    // happy-dom lays nothing out: a scroller 300 px wide holding a 900 px table.
    const widths = [
      vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(300),
      vi.spyOn(HTMLElement.prototype, 'scrollWidth', 'get').mockReturnValue(900),
    ];
    try {
      renderTable({ defaultPerPage: 5, label: 'Rows' });
      await screen.findByText('Row 1');
      expect(await screen.findByText('Scroll sideways for more')).toBeTruthy();
      const region = screen.getByRole('region', { name: 'Rows (scrolls sideways)' });
      expect(region.getAttribute('tabindex')).toBe('0');
      expect(within(region).getByRole('table', { name: 'Rows' })).toBeTruthy();
    } finally {
      for (const spy of widths) spy.mockRestore();
    }
  });

  it('says nothing about scrolling when the table fits', async () => {
    renderTable({ defaultPerPage: 5, label: 'Rows' });
    await screen.findByText('Row 1');
    expect(screen.queryByText('Scroll sideways for more')).toBeNull();
    expect(screen.queryByRole('region', { name: /scrolls sideways/ })).toBeNull();
  });
});
