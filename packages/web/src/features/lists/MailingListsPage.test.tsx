import {
  LIST_MESSAGES,
  pageMeta,
  type TListImport,
  type TMailingList,
  type TSendingAccount,
} from '@sendwell/contracts';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createQueryClient } from '../../app/queryClient';
import { realtime } from '../../app/realtime';
import { USER_QUERY_KEY } from '../../app/session';
import { buildAccount, buildSmtpAccount } from '../../test/accounts';
import { callsTo, stubApi } from '../../test/api';
import { buildImport, buildList } from '../../test/lists';
import { latestSocket, pushRealtimeEvent, stubWebSocket } from '../../test/realtime';
import { jsonResponse, renderWithApp, requestedUrls } from '../../test/render';
import { buildUser } from '../../test/user';
import { MailingListsPage } from './MailingListsPage';

const LISTS = 'GET /api/mailing-lists';
const ACCOUNTS = 'GET /api/settings/accounts';
const IMPORTS = 'GET /api/mailing-lists/imports';
const CREATE = 'POST /api/mailing-lists';

const stubPage = (
  {
    lists = [buildList()],
    accounts = [buildAccount({ active: true })],
    imports = [],
  }: {
    lists?: TMailingList[];
    accounts?: TSendingAccount[];
    imports?: TListImport[];
  } = {},
  extra: Record<string, unknown> = {},
) =>
  stubApi({
    [LISTS]: { data: lists, meta: pageMeta(lists.length, 1, 20) },
    [ACCOUNTS]: { data: accounts },
    [IMPORTS]: { data: imports },
    ...extra,
  });

const renderPage = () => {
  const queryClient = createQueryClient();
  queryClient.setQueryData(USER_QUERY_KEY, buildUser({ time_zone: 'UTC' }));
  return renderWithApp(<MailingListsPage />, queryClient);
};

const bodiesOf = (fetchMock: ReturnType<typeof stubApi>, key: string) =>
  callsTo(fetchMock, key).map((body) => JSON.parse(String(body)));

const openRowMenu = async (address: string) => {
  fireEvent.click(await screen.findByRole('button', { name: `Actions for ${address}` }));
  return screen.findByRole('menu');
};

describe('MailingListsPage', () => {
  beforeEach(() => {
    stubWebSocket();
    realtime.connect({ onSignedOut: vi.fn(), onReconnected: vi.fn() });
    latestSocket().onopen?.();
  });
  afterEach(() => {
    realtime.disconnect();
    vi.unstubAllGlobals();
  });

  it('lists the lists with their members and verification, and the row menu', async () => {
    stubPage({
      lists: [
        buildList(),
        buildList({
          id: 6,
          address: 'vip@mg.example.com',
          name: 'VIP',
          members_count: 1200,
          verified_count: 1100,
          verify_status: 'verified',
          verified_at: '2026-11-21T15:00:00.000Z',
        }),
      ],
    });
    renderPage();

    const table = within(await screen.findByRole('table', { name: 'Mailing lists' }));
    expect(await table.findByText('news@mg.example.com')).toBeTruthy();
    expect(table.getByText('Weekly news')).toBeTruthy();
    expect(table.getByText('1,200')).toBeTruthy();
    expect(table.getByText('Unverified')).toBeTruthy();
    const vipRow = within(table.getByText('vip@mg.example.com').closest('tr')!);
    expect(vipRow.getByText('Verified')).toBeTruthy();
    expect(vipRow.getByText('11/21/2026 3:00 PM')).toBeTruthy();
    expect(table.getByRole('link', { name: 'vip@mg.example.com' }).getAttribute('href')).toBe(
      '/mailing-lists/detail/1/6',
    );

    const menu = within(await openRowMenu('news@mg.example.com'));
    expect(menu.getAllByRole('menuitem').map((item) => item.textContent)).toEqual([
      'View/Edit Members',
      'Import CSV',
      'Edit List',
      'Signup Form',
      'Verify Your List',
      'Generic Email Control',
      'Delete List',
    ]);
    expect(menu.getByRole('menuitem', { name: 'View/Edit Members' }).getAttribute('href')).toBe(
      '/mailing-lists/detail/1/5',
    );
    expect(menu.getByRole('menuitem', { name: 'Signup Form' }).getAttribute('href')).toBe(
      '/mailing-lists/signup-form/5',
    );
  });

  it('filters by account', async () => {
    const fetchMock = stubPage({
      accounts: [
        buildAccount({ id: 1, name: 'Newsletter', active: true }),
        buildSmtpAccount({ id: 2, name: 'Office' }),
      ],
    });
    renderPage();
    await screen.findByText('news@mg.example.com');

    fireEvent.change(screen.getByLabelText('Filter by account'), { target: { value: '2' } });

    await waitFor(() =>
      expect(
        requestedUrls(fetchMock).some(
          (url) => url.pathname === '/api/mailing-lists' && url.searchParams.get('account_id') === '2',
        ),
      ).toBe(true),
    );
  });

  it('creates a list on the primary account at its domain', async () => {
    const fetchMock = stubPage(
      {
        accounts: [
          buildSmtpAccount({ id: 2, name: 'Office', listDomain: 'office.example' }),
          buildAccount({ id: 1, name: 'Newsletter', active: true, listDomain: 'mg.example.com' }),
        ],
      },
      { [CREATE]: { status: true, message: LIST_MESSAGES.listCreated, data: buildList({ id: 9 }) } },
    );
    renderPage();
    const create = await screen.findByRole('button', { name: 'Create List' });
    await waitFor(() => expect((create as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(create);

    const dialog = within(await screen.findByRole('dialog'));
    expect((dialog.getByLabelText(/^Account/) as HTMLSelectElement).value).toBe('1');
    const domain = dialog.getByLabelText('Domain') as HTMLInputElement;
    expect(domain.value).toBe('mg.example.com');
    expect(domain.readOnly).toBe(true);

    fireEvent.click(dialog.getByRole('button', { name: 'Create List' }));
    expect(await dialog.findByText(LIST_MESSAGES.aliasRequired)).toBeTruthy();
    expect(dialog.getByText(LIST_MESSAGES.nameRequired)).toBeTruthy();
    expect(dialog.getByText(LIST_MESSAGES.formInvalid)).toBeTruthy();

    fireEvent.change(dialog.getByLabelText(/^Account/), { target: { value: '2' } });
    expect(domain.value).toBe('office.example');
    fireEvent.change(dialog.getByLabelText(/^Alias/), { target: { value: 'team' } });
    fireEvent.change(dialog.getByLabelText(/^Name/), { target: { value: 'Team' } });
    fireEvent.click(dialog.getByRole('button', { name: 'Create List' }));

    expect(await screen.findByText(LIST_MESSAGES.listCreated)).toBeTruthy();
    expect(bodiesOf(fetchMock, CREATE)).toEqual([{ accountId: 2, alias: 'team', name: 'Team', description: '' }]);
  });

  it('shows the server’s field errors when the list edit is refused', async () => {
    stubPage(
      {},
      {
        'GET /api/mailing-lists/get-list-info/5': { status: true, message: '', data: buildList() },
        'POST /api/mailing-lists/update/list/5': () =>
          jsonResponse({ message: 'Validation failed', errors: { name: ['The name is too long.'] } }, 422),
      },
    );
    renderPage();
    fireEvent.click(within(await openRowMenu('news@mg.example.com')).getByRole('menuitem', { name: 'Edit List' }));

    const dialog = within(await screen.findByRole('dialog'));
    expect(((await dialog.findByLabelText('Account')) as HTMLInputElement).readOnly).toBe(true);
    expect((dialog.getByLabelText('Domain') as HTMLInputElement).value).toBe('mg.example.com');
    const alias = dialog.getByLabelText(/^Alias/) as HTMLInputElement;
    expect(alias.value).toBe('news');

    fireEvent.change(alias, { target: { value: '' } });
    fireEvent.click(dialog.getByRole('button', { name: 'Save' }));
    expect(await dialog.findByText(LIST_MESSAGES.aliasRequired)).toBeTruthy();

    fireEvent.change(alias, { target: { value: 'news' } });
    fireEvent.click(dialog.getByRole('button', { name: 'Save' }));
    expect(await dialog.findByText('The name is too long.')).toBeTruthy();
    expect(dialog.getByText(LIST_MESSAGES.formInvalid)).toBeTruthy();
  });

  it('names what uses a list before deleting it, and offers to delete it at Mailgun too', async () => {
    const fetchMock = stubPage(
      {},
      {
        'POST /api/mailing-lists/check-delete': {
          status: true,
          campaigns: [{ type: 'drip', id: 4, name: 'Welcome series' }],
        },
        'POST /api/mailing-lists/delete': { status: true, message: LIST_MESSAGES.listDeleted },
      },
    );
    renderPage();
    fireEvent.click(within(await openRowMenu('news@mg.example.com')).getByRole('menuitem', { name: 'Delete List' }));

    const dialog = within(await screen.findByRole('dialog'));
    expect(await dialog.findByText('Drip campaign: Welcome series')).toBeTruthy();
    fireEvent.click(dialog.getByLabelText('Also delete this list at Mailgun'));
    fireEvent.click(dialog.getByRole('button', { name: 'Delete List' }));

    expect(await screen.findByText(LIST_MESSAGES.listDeleted)).toBeTruthy();
    expect(bodiesOf(fetchMock, 'POST /api/mailing-lists/check-delete')).toEqual([
      { listId: 5, account: 1, address: 'news@mg.example.com' },
    ]);
    expect(bodiesOf(fetchMock, 'POST /api/mailing-lists/delete')).toEqual([
      { listId: 5, account: 1, address: 'news@mg.example.com', deleteMailgun: true },
    ]);
  });

  it('offers Sync From Provider only to users with a Mailgun account', async () => {
    const fetchMock = stubPage(
      {},
      { 'POST /api/mailing-lists/import-lists-from-provider': { status: true, message: 'Synced 1 mailing list.' } },
    );
    renderPage();
    fireEvent.click(await screen.findByRole('button', { name: 'Sync From Provider' }));

    expect(await screen.findByText('Synced 1 mailing list.')).toBeTruthy();
    expect(bodiesOf(fetchMock, 'POST /api/mailing-lists/import-lists-from-provider')).toEqual([{ accountId: 1 }]);
  });

  it('has no Sync From Provider for SMTP accounts', async () => {
    stubPage({ accounts: [buildSmtpAccount({ active: true })] });
    renderPage();
    await screen.findByText('news@mg.example.com');
    expect(screen.queryByRole('button', { name: 'Sync From Provider' })).toBeNull();
  });

  it('points to the sending accounts when there are none', async () => {
    stubPage({ lists: [], accounts: [] });
    renderPage();
    expect(await screen.findByText('Connect a sending account first.')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Go to Sending Accounts' }).getAttribute('href')).toBe(
      '/settings/accounts',
    );
  });

  it('explains lists when there are none yet', async () => {
    stubPage({ lists: [] });
    renderPage();
    expect(await screen.findByText('No data found.')).toBeTruthy();
    expect(screen.getAllByRole('button', { name: 'Create List' })).toHaveLength(2);
  });

  it('shows a running import above the table and moves it on with realtime events', async () => {
    stubPage(
      { imports: [buildImport({ status: 'running', stage: 'reading', bytes_read: 250, rows_read: 10 })] },
      { 'GET /api/mailing-lists/imports/11': { data: buildImport({ status: 'running', bytes_read: 250 }) } },
    );
    renderPage();

    const card = within(await screen.findByTestId('import-11'));
    expect(card.getByText('Importing')).toBeTruthy();
    expect(card.getByText(/Reading .* \(25%\)/)).toBeTruthy();
    expect(
      card.getByRole('progressbar', { name: 'Import progress of members.csv' }).getAttribute('aria-valuenow'),
    ).toBe('25');

    act(() =>
      pushRealtimeEvent('ListImportProgressEvent', {
        id: 11,
        list_id: 5,
        status: 'running',
        stage: 'saving',
        bytes_total: 1000,
        bytes_read: 1000,
        rows_read: 40,
        added: 0,
        updated: 0,
        skipped: 2,
        duplicates: 1,
        error: null,
      }),
    );
    expect(await card.findByText('Saving members…')).toBeTruthy();
    expect(card.getByText('40')).toBeTruthy();
  });
});
