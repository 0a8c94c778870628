import type { TScheduledEmail } from '@sendwell/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { ComponentType } from 'react';
import { Route, type RouteObject, Routes } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createQueryClient } from '../../app/queryClient';
import { routes } from '../../app/router';
import { USER_QUERY_KEY } from '../../app/session';
import { callsTo, stubApi } from '../../test/api';
import { renderWithApp } from '../../test/render';
import { buildUser } from '../../test/user';
import { buildContent } from '../send-email/send-email.fixtures';
import { ScheduledPage } from './ScheduledPage';

/** Tuesday 12 November 2030, 10:00 AM in New York (3:00 PM UTC, midnight in Tokyo). */
const SCHEDULED: TScheduledEmail = {
  id: 7,
  from: 'Acme <news@acme.test>',
  to: 'Customers',
  subject: 'November news',
  cc: '',
  bcc: '',
  content: { cc: '', bcc: '', reply_to: '', message_body: '<p>News</p>' },
  account_id: 1,
  delivery_time: '2030-11-12T15:00:00.000Z',
  send_time: null,
  created_at: '2026-11-01T12:00:00.000Z',
  status: 0,
};

const UPDATE = 'POST /api/scheduled-mails/update/7';

const findRoute = (list: RouteObject[], path: string): RouteObject | undefined => {
  for (const route of list) {
    if (route.path === path) return route;
    const inner = route.children && findRoute(route.children, path);
    if (inner) return inner;
  }
  return undefined;
};

/** The app's own edit screen for a scheduled email, when the router has one. */
const editScreen = async () => {
  const route = findRoute(routes, 'scheduled-mails/edit/:id');
  const lazy = typeof route?.lazy === 'function' ? await route.lazy() : undefined;
  return (lazy as { Component?: ComponentType } | undefined)?.Component;
};

describe('Scheduled Emails in the user’s time zone (issue 29 item 3)', () => {
  const browserZone = process.env.TZ;
  // The browser is in another zone than the user's account.
  beforeEach(() => {
    process.env.TZ = 'Asia/Tokyo';
  });
  afterEach(() => {
    process.env.TZ = browserZone;
    vi.unstubAllGlobals();
  });

  it('shows a scheduled email at the same time in the list and in its edit form', async () => {
    const fetchMock = stubApi({
      [UPDATE]: { status: true, message: 'Your scheduled email was saved.' },
      'GET /api/scheduled-mails': {
        data: [SCHEDULED],
        meta: { current_page: 1, last_page: 1, from: 1, to: 1, total: 1, per_page: 20 },
      },
      'GET /api/email/send-email-content': { status: true, data: buildContent({ timeZone: 'America/New_York' }) },
      'GET /api/email/get-scheduled-edit-email-data/7': {
        status: true,
        record: {
          id: 7,
          from: 'Acme',
          to: 'Customers',
          list_ids: [5],
          subject: SCHEDULED.subject,
          account_id: 1,
          delivery_time: SCHEDULED.delivery_time,
          content: SCHEDULED.content,
          from_address: 'news@example.com',
          track_opens: true,
          track_clicks: true,
          status: 0,
          editable: true,
        },
      },
    });
    const queryClient = createQueryClient();
    queryClient.setQueryData(USER_QUERY_KEY, buildUser({ time_zone: 'America/New_York' }));
    const EditScreen = await editScreen();
    renderWithApp(
      <Routes>
        <Route path="/scheduled-mails" element={<ScheduledPage />} />
        {EditScreen && <Route path="/scheduled-mails/edit/:id" element={<EditScreen />} />}
      </Routes>,
      queryClient,
      ['/scheduled-mails'],
    );

    const table = await screen.findByRole('table', { name: 'Scheduled emails' });
    expect(await within(table).findByText('11/12/2030 10:00 AM')).toBeTruthy();

    fireEvent.click(within(table).getByLabelText('Edit November news'));
    // The edit form's delivery time is the list's: 10:00 AM on 11/12, not the browser's midnight of the 13th.
    const deliveryTime = () =>
      (screen.getAllByLabelText(/^Delivery time/).find((element) => element.tagName === 'INPUT') as HTMLInputElement)
        .value;
    await waitFor(() => expect(deliveryTime()).toMatch(/10:00/));
    expect(deliveryTime()).toBe('10:00 AM');
    expect(screen.getByRole('button', { name: /^Delivery date/ }).textContent).toContain('2030-11-12');

    // Saving sends the whole form back, the time as the user reads it (the server reads it in their zone).
    fireEvent.change(screen.getByLabelText(/^Subject/), { target: { value: 'November news, revised' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save changes' }));
    await waitFor(() => expect(callsTo(fetchMock, UPDATE)).toHaveLength(1));
    expect(JSON.parse(String(callsTo(fetchMock, UPDATE)[0]))).toMatchObject({
      account: 1,
      alias: 'news',
      from: 'Acme <news@example.com>',
      to: [5],
      subject: 'November news, revised',
      delivery: '2030-11-12 10:00 AM',
      sendLater: true,
    });
    expect(await screen.findByText('Your scheduled email was saved.')).toBeTruthy();
    expect(await screen.findByRole('table', { name: 'Scheduled emails' })).toBeTruthy();
  });
});
