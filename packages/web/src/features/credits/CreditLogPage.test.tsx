import { pageMeta, type TCreditLogEntry } from '@sendwell/contracts';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import dayjs from 'dayjs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createQueryClient } from '../../app/queryClient';
import { realtime } from '../../app/realtime';
import { USER_QUERY_KEY } from '../../app/session';
import { latestSocket, pushRealtimeEvent, stubWebSocket } from '../../test/realtime';
import { jsonResponse, renderWithApp, requestedUrls } from '../../test/render';
import { buildUser } from '../../test/user';
import { CreditLogPage } from './CreditLogPage';

const entries: TCreditLogEntry[] = [
  {
    id: 3,
    type: 'verify',
    quantity: -120,
    reference: 'Verification of list Customers',
    created_at: '2026-11-21T17:05:00.000Z',
  },
  { id: 2, type: 'mon-balance-add', quantity: 1000, reference: null, created_at: '2026-11-01T00:00:00.000Z' },
];

const renderPage = () => {
  const queryClient = createQueryClient();
  queryClient.setQueryData(
    USER_QUERY_KEY,
    buildUser({ time_zone: 'America/New_York', credit: { totalCredit: 880, usedCredit: 120 } }),
  );
  return renderWithApp(<CreditLogPage />, queryClient);
};

const creditLogCalls = (fetchMock: ReturnType<typeof vi.fn>) =>
  requestedUrls(fetchMock).filter((url) => url.pathname === '/api/credit-log');
const lastQuery = (fetchMock: ReturnType<typeof vi.fn>) => creditLogCalls(fetchMock).at(-1)?.searchParams;

describe('CreditLogPage', () => {
  let fetchMock: ReturnType<typeof vi.fn>;

  beforeEach(() => {
    fetchMock = vi.fn(async () => jsonResponse({ data: entries, meta: pageMeta(entries.length, 1, 15) }));
    vi.stubGlobal('fetch', fetchMock);
    stubWebSocket();
    realtime.connect({ onSignedOut: vi.fn(), onReconnected: vi.fn() });
    latestSocket().onopen?.();
  });
  afterEach(() => {
    realtime.disconnect();
    vi.unstubAllGlobals();
  });

  it('asks for the newest 15 entries first and shows them readably, in the user’s time zone', async () => {
    renderPage();
    const table = await screen.findByRole('table', { name: 'Credit log' });
    await within(table).findByText('Verification');

    const query = lastQuery(fetchMock);
    expect(query?.get('per_page')).toBe('15');
    expect(query?.get('column')).toBe('created_at');
    expect(query?.get('order')).toBe('desc');
    expect(query?.get('page')).toBe('1');
    expect(screen.queryByRole('searchbox')).toBeNull();

    const [, first, second] = within(table).getAllByRole('row');
    expect(within(first as HTMLElement).getByText('-120')).toBeTruthy();
    expect(within(first as HTMLElement).getByText('Verification of list Customers')).toBeTruthy();
    expect(within(first as HTMLElement).getByText('11/21/2026 12:05 PM')).toBeTruthy();
    expect(within(second as HTMLElement).getByText('Monthly credits added')).toBeTruthy();
    expect(within(second as HTMLElement).getByText('+1,000')).toBeTruthy();
    expect(within(second as HTMLElement).getByText('—')).toBeTruthy();

    // Usable = total − used, as the spec counts them.
    expect(screen.getByTestId('credit-log-balance').textContent).toBe('760');
    expect(screen.getByTestId('credit-log-used').textContent).toBe('120');
    expect(screen.getByTestId('credit-log-total').textContent).toBe('880');
  });

  it('filters by type at once, from the first page', async () => {
    renderPage();
    await screen.findByText('Verification of list Customers');
    const typeSelect = screen.getByRole('combobox', { name: 'Type' }) as HTMLSelectElement;
    expect(typeSelect.selectedOptions[0]?.textContent).toBe('All types');
    expect(lastQuery(fetchMock)?.has('type')).toBe(false);

    fireEvent.change(typeSelect, { target: { value: 'spam-check' } });
    await waitFor(() => expect(lastQuery(fetchMock)?.get('type')).toBe('spam-check'));
    expect(lastQuery(fetchMock)?.get('page')).toBe('1');
  });

  it('filters by a date range once both days are picked, sending them as YYYY-MM-DD', async () => {
    renderPage();
    await screen.findByText('Verification of list Customers');
    const month = dayjs().startOf('month');

    fireEvent.click(screen.getByRole('button', { name: 'Date range' }));
    fireEvent.click(await screen.findByRole('button', { name: month.format('D MMMM YYYY') }));
    // Half a range is not a filter yet: the table keeps its rows until the second day is picked.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(creditLogCalls(fetchMock).some((url) => url.searchParams.has('first_date'))).toBe(false);

    fireEvent.click(screen.getByRole('button', { name: month.add(2, 'day').format('D MMMM YYYY') }));
    await waitFor(() => expect(lastQuery(fetchMock)?.get('first_date')).toBe(month.format('YYYY-MM-DD')));
    expect(lastQuery(fetchMock)?.get('last_date')).toBe(month.add(2, 'day').format('YYYY-MM-DD'));
    expect(lastQuery(fetchMock)?.get('page')).toBe('1');
  });

  it('reloads the log and the balance card when the balance changes', async () => {
    renderPage();
    await screen.findByText('Verification of list Customers');
    const callsBefore = creditLogCalls(fetchMock).length;

    act(() => pushRealtimeEvent('CreditBalanceEvent', { totalCredit: 870, usedCredit: 130 }));

    await waitFor(() => expect(screen.getByTestId('credit-log-balance').textContent).toBe('740'));
    expect(screen.getByTestId('credit-log-used').textContent).toBe('130');
    expect(screen.getByTestId('credit-log-total').textContent).toBe('870');
    await waitFor(() => expect(creditLogCalls(fetchMock).length).toBe(callsBefore + 1));
  });
});
