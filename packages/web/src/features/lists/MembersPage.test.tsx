import { LIST_MESSAGES, pageMeta, type TMember } from '@sendwell/contracts';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AppProviders } from '../../app/providers';
import { createQueryClient } from '../../app/queryClient';
import { USER_QUERY_KEY } from '../../app/session';
import { callsTo, stubApi } from '../../test/api';
import { buildList, buildMember } from '../../test/lists';
import { jsonResponse, requestedUrls } from '../../test/render';
import { buildUser } from '../../test/user';
import { MembersPage } from './MembersPage';

const LIST_INFO = 'GET /api/mailing-lists/get-list-info/5';
const MEMBERS = 'GET /api/mailing-lists/5/members';
const IMPORTS = 'GET /api/mailing-lists/imports';

const MEMBERS_ON_LIST: TMember[] = [
  buildMember(),
  buildMember({
    id: 4,
    email: 'grace@example.com',
    fullname: 'Grace Hopper',
    subscribe: 0,
    verified: true,
    verified_at: '2026-11-21T15:00:00.000Z',
  }),
];

const stubMembers = (extra: Record<string, unknown> = {}) =>
  stubApi({
    [LIST_INFO]: { status: true, message: '', data: buildList({ members_count: 2, subscribed: 1, verified_count: 1 }) },
    [MEMBERS]: { data: MEMBERS_ON_LIST, meta: pageMeta(2, 1, 20) },
    [IMPORTS]: { data: [] },
    ...extra,
  });

/** The page reads its list from the address, as the router gives it. */
const renderAt = (path: string) => {
  const queryClient = createQueryClient();
  queryClient.setQueryData(USER_QUERY_KEY, buildUser({ time_zone: 'UTC' }));
  return render(
    <AppProviders queryClient={queryClient} env="test">
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="/mailing-lists/detail/:accountId/:listId" element={<MembersPage />} />
        </Routes>
      </MemoryRouter>
    </AppProviders>,
  );
};

const bodiesOf = (fetchMock: ReturnType<typeof stubApi>, key: string) =>
  callsTo(fetchMock, key).map((body) => JSON.parse(String(body)));

describe('MembersPage', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('shows the list with its counts and its members sorted by email', async () => {
    const fetchMock = stubMembers();
    renderAt('/mailing-lists/detail/1/5');

    expect(await screen.findByRole('heading', { name: 'Weekly news' })).toBeTruthy();
    expect(screen.getByText(/2 members · 1 subscribed · 1 verified/)).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Back to Mailing Lists' }).getAttribute('href')).toBe('/mailing-lists');

    const table = within(screen.getByRole('table', { name: 'Members of news@mg.example.com' }));
    const grace = within((await table.findByText('grace@example.com')).closest('tr')!);
    expect(grace.getByText('Unsubscribed')).toBeTruthy();
    expect(grace.getByText('Verified')).toBeTruthy();
    expect(grace.getByText('11/21/2026 3:00 PM')).toBeTruthy();
    const ada = within(table.getByText('ada@example.com').closest('tr')!);
    expect(ada.getByText('Subscribed')).toBeTruthy();
    expect(ada.getByText('Unverified')).toBeTruthy();

    const query = requestedUrls(fetchMock).find((url) => url.pathname === '/api/mailing-lists/5/members');
    expect(query?.searchParams.get('column')).toBe('email');
    expect(query?.searchParams.get('order')).toBe('asc');
  });

  it('says the list does not exist when the server knows no such list', async () => {
    stubMembers({ [LIST_INFO]: () => jsonResponse({ status: false, message: 'Not found.' }, 404) });
    renderAt('/mailing-lists/detail/1/5');

    expect(await screen.findByText('This mailing list does not exist.')).toBeTruthy();
    expect(screen.queryByRole('table')).toBeNull();
  });

  it('deletes the checked members after naming how many', async () => {
    const fetchMock = stubMembers({
      'POST /api/mailing-lists/bulk-delete-member': { status: true, message: `${LIST_MESSAGES.membersDeleted} (2)` },
    });
    renderAt('/mailing-lists/detail/1/5');
    await screen.findByText('grace@example.com');

    const bulk = screen.getByRole('button', { name: /Delete selected/ }) as HTMLButtonElement;
    expect(bulk.disabled).toBe(true);
    fireEvent.click(screen.getByRole('checkbox', { name: 'Select all' }));
    await waitFor(() => expect(bulk.disabled).toBe(false));
    expect(bulk.textContent).toContain('Delete selected (2)');
    fireEvent.click(bulk);

    const dialog = within(await screen.findByRole('dialog'));
    expect(dialog.getByText(/2 members will be removed/)).toBeTruthy();
    fireEvent.click(dialog.getByRole('button', { name: 'Delete 2 members' }));

    expect(await screen.findByText(`${LIST_MESSAGES.membersDeleted} (2)`)).toBeTruthy();
    expect(bodiesOf(fetchMock, 'POST /api/mailing-lists/bulk-delete-member')).toEqual([
      { memberId: [3, 4], accountId: 1, listId: 5 },
    ]);
  });

  it('deletes one member from its row menu', async () => {
    const fetchMock = stubMembers({
      'POST /api/mailing-lists/delete-member': { status: true, message: LIST_MESSAGES.memberDeleted },
    });
    renderAt('/mailing-lists/detail/1/5');

    fireEvent.click(await screen.findByRole('button', { name: 'Actions for grace@example.com' }));
    fireEvent.click(await screen.findByRole('menuitem', { name: 'Delete' }));
    const dialog = within(await screen.findByRole('dialog'));
    fireEvent.click(dialog.getByRole('button', { name: 'Delete' }));

    expect(await screen.findByText(LIST_MESSAGES.memberDeleted)).toBeTruthy();
    expect(bodiesOf(fetchMock, 'POST /api/mailing-lists/delete-member')).toEqual([
      { listId: 5, id: 4, email: 'grace@example.com' },
    ]);
  });
});
