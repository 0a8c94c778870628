import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { ComponentType } from 'react';
import { Route, type RouteObject, Routes, useLocation } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createQueryClient } from '../../app/queryClient';
import { routes } from '../../app/router';
import { USER_QUERY_KEY } from '../../app/session';
import { callsTo, stubApi } from '../../test/api';
import { jsonResponse, renderWithApp } from '../../test/render';
import { buildUser } from '../../test/user';

const findRoute = (list: RouteObject[], path: string): RouteObject | undefined => {
  for (const route of list) {
    if (route.path === path) return route;
    const inner = route.children && findRoute(route.children, path);
    if (inner) return inner;
  }
  return undefined;
};

/** The screen the app's router serves at one of its paths. */
const screenAt = async (path: string) => {
  const route = findRoute(routes, path);
  const lazy = typeof route?.lazy === 'function' ? await route.lazy() : undefined;
  const Component = (lazy as { Component?: ComponentType } | undefined)?.Component;
  if (!Component) throw new Error(`The router has no screen at ${path}`);
  return Component;
};

const record = (status: 0 | 1 | 2) => ({
  status: true,
  record: {
    id: 7,
    from: 'Acme',
    to: 'Customers',
    list_ids: [5],
    subject: 'November news',
    account_id: 1,
    delivery_time: '2030-11-12T15:00:00.000Z',
    content: { cc: '', bcc: '', reply_to: '', message_body: '<p>News</p>' },
    from_address: 'news@example.com',
    track_opens: true,
    track_clicks: true,
    status,
    editable: status === 0,
  },
});

const DATA = 'GET /api/email/get-scheduled-edit-email-data/7';
const Where = () => <p data-testid="where">{useLocation().pathname}</p>;

const renderAt = async (routePath: string, url: string) => {
  const Screen = await screenAt(routePath);
  const queryClient = createQueryClient();
  queryClient.setQueryData(USER_QUERY_KEY, buildUser({ time_zone: 'America/New_York' }));
  renderWithApp(
    <Routes>
      <Route path={`/${routePath}`} element={<Screen />} />
      <Route path="/scheduled-mails" element={<Where />} />
    </Routes>,
    queryClient,
    [url],
  );
};

describe("The Scheduled Emails' linked action pages (spec §2)", () => {
  afterEach(() => vi.unstubAllGlobals());

  it('/scheduled-mails/cancel/{id} shows the email, asks, cancels, says Success! with OK, and goes back', async () => {
    const fetchMock = stubApi({
      [DATA]: record(0),
      'POST /api/scheduled-mails/cancel/7': { status: true, message: 'The scheduled email was cancelled.' },
    });
    await renderAt('scheduled-mails/cancel/:id', '/scheduled-mails/cancel/7');

    expect(await screen.findByRole('heading', { name: 'Cancel Scheduled Email' })).toBeTruthy();
    const email = await screen.findByRole('table', { name: 'The scheduled email' });
    expect(email.textContent).toContain('November news');
    expect(email.textContent).toContain('11/12/2030 10:00 AM');
    expect(email.textContent).toContain('Pending');
    expect(callsTo(fetchMock, 'POST /api/scheduled-mails/cancel/7')).toHaveLength(0);

    fireEvent.click(screen.getByRole('button', { name: 'Cancel email' }));
    const success = await screen.findByRole('dialog', { name: 'Success!' });
    expect(success.textContent).toContain('The scheduled email was cancelled.');
    expect(callsTo(fetchMock, 'POST /api/scheduled-mails/cancel/7')).toHaveLength(1);
    fireEvent.click(within(success).getByRole('button', { name: 'OK' }));
    expect((await screen.findByTestId('where')).textContent).toBe('/scheduled-mails');
  });

  it('…/cancel/{id}/remove-cancel schedules a cancelled email again', async () => {
    const fetchMock = stubApi({
      [DATA]: record(2),
      'POST /api/scheduled-mails/cancel/7/remove-cancel': { status: true, message: 'The email is scheduled again.' },
    });
    await renderAt('scheduled-mails/cancel/:id/remove-cancel', '/scheduled-mails/cancel/7/remove-cancel');

    expect(await screen.findByRole('heading', { name: 'Remove Cancel' })).toBeTruthy();
    fireEvent.click(await screen.findByRole('button', { name: 'Remove cancel' }));
    expect(await screen.findByRole('dialog', { name: 'Success!' })).toBeTruthy();
    expect(callsTo(fetchMock, 'POST /api/scheduled-mails/cancel/7/remove-cancel')).toHaveLength(1);
  });

  it('/scheduled-mails/delete/{id} deletes after the confirm, whatever the status', async () => {
    const fetchMock = stubApi({
      [DATA]: record(1),
      'POST /api/scheduled-mails/delete/7': { status: true, message: 'The email was deleted.' },
    });
    await renderAt('scheduled-mails/delete/:id', '/scheduled-mails/delete/7');

    fireEvent.click(await screen.findByRole('button', { name: 'Delete' }));
    expect((await screen.findByRole('dialog', { name: 'Success!' })).textContent).toContain('The email was deleted.');
    expect(callsTo(fetchMock, 'POST /api/scheduled-mails/delete/7')).toHaveLength(1);
  });

  it('says why an action its status does not allow cannot be done, and offers no button', async () => {
    const fetchMock = stubApi({ [DATA]: record(1) });
    await renderAt('scheduled-mails/cancel/:id', '/scheduled-mails/cancel/7');

    expect((await screen.findByTestId('not-allowed')).textContent).toContain(
      'Only a pending email can be cancelled; this one is sent.',
    );
    expect(screen.queryByRole('button', { name: 'Cancel email' })).toBeNull();
    expect(screen.getByRole('link', { name: 'Back to Scheduled Emails' })).toBeTruthy();
    expect(fetchMock.mock.calls.every(([, init]) => (init?.method ?? 'GET') === 'GET')).toBe(true);
  });

  it("says another user's or a missing email does not exist", async () => {
    stubApi({ [DATA]: () => jsonResponse({ status: false, message: 'This send does not exist.' }, 404) });
    await renderAt('scheduled-mails/delete/:id', '/scheduled-mails/delete/7');

    expect(await screen.findByText('This scheduled email does not exist')).toBeTruthy();
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Delete' })).toBeNull());
  });
});
