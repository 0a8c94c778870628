import type { TOperatorAccount, TOperatorUser } from '@sendwell/contracts';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { callsTo, stubApi } from '../../test/api';
import { renderWithApp } from '../../test/render';
import { AccountsPanel } from './AccountsPanel';

const USER: TOperatorUser = {
  id: 7,
  email: 'ada@example.com',
  name: 'Ada',
  role: 'user',
  disabled: false,
  plan: { id: 3, name: 'Pro' },
  credit: { totalCredit: 0, usedCredit: 0 },
  created_at: '2026-11-20T10:00:00.000Z',
};
const RELAY: TOperatorAccount = {
  id: 3,
  name: 'Own relay',
  provider: 'smtp',
  driver: 'smtp',
  host: 'relay.example.com',
  capped: true,
  mail_per_day: 1000,
  operator_mail_per_day: null,
  daily_cap: 1000,
  sent_today: 420,
};
const MAILGUN: TOperatorAccount = {
  ...RELAY,
  id: 4,
  name: 'Mailgun',
  provider: 'mailgun',
  driver: null,
  host: null,
  capped: false,
  mail_per_day: 0,
  daily_cap: null,
  sent_today: 0,
};
const ACCOUNTS = 'GET /api/operator/users/7/accounts';
const SET_CAP = 'POST /api/operator/accounts/3/daily-cap';

describe('AccountsPanel (the operator sets a daily cap)', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('shows what caps each account and raises an SMTP account past the form’s 1,000 with a reason', async () => {
    const raised = { ...RELAY, operator_mail_per_day: 25_000, daily_cap: 25_000 };
    const fetchMock = stubApi({
      [ACCOUNTS]: { data: [RELAY, MAILGUN] },
      [SET_CAP]: { status: true, message: 'The account may send 25,000 emails a day.', data: raised },
    });
    renderWithApp(<AccountsPanel user={USER} />);
    expect(await screen.findByText("1,000 a day (the user's setting)")).toBeTruthy();
    expect(screen.getByText('Not capped')).toBeTruthy();
    expect(screen.getByText('420')).toBeTruthy();
    // Mailgun has no cap to change.
    expect(screen.getAllByRole('button', { name: /Change cap of/ })).toHaveLength(1);

    fireEvent.click(screen.getByRole('button', { name: 'Change cap of Own relay' }));
    const cap = await screen.findByLabelText(/Emails a day for Own relay/);
    fireEvent.change(cap, { target: { value: '25,000' } });
    fireEvent.click(screen.getByRole('button', { name: 'Set daily cap' }));
    // The reason is required: nothing is sent without it.
    expect(await screen.findByText('Say why, in at least 3 characters.')).toBeTruthy();
    expect(callsTo(fetchMock, SET_CAP)).toHaveLength(0);
    fireEvent.change(screen.getByLabelText(/Reason/), { target: { value: 'Their own Postfix relay' } });
    fireEvent.click(screen.getByRole('button', { name: 'Set daily cap' }));
    await waitFor(() => expect(callsTo(fetchMock, SET_CAP)).toHaveLength(1));
    expect(JSON.parse(String(callsTo(fetchMock, SET_CAP)[0]))).toEqual({
      dailyCap: 25_000,
      reason: 'Their own Postfix relay',
    });
  });

  it('gives an account back to the user’s own setting', async () => {
    const raised = { ...RELAY, operator_mail_per_day: 25_000, daily_cap: 25_000 };
    const fetchMock = stubApi({
      [ACCOUNTS]: { data: [raised] },
      [SET_CAP]: { status: true, message: "The account's daily cap is the user's own setting again.", data: RELAY },
    });
    renderWithApp(<AccountsPanel user={USER} />);
    expect(await screen.findByText("25,000 a day (set by an operator; the user's: 1,000)")).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Change cap of Own relay' }));
    fireEvent.change(await screen.findByLabelText(/Reason/), { target: { value: 'The relay is gone' } });
    fireEvent.click(screen.getByRole('button', { name: "Use the user's setting" }));
    await waitFor(() => expect(callsTo(fetchMock, SET_CAP)).toHaveLength(1));
    expect(JSON.parse(String(callsTo(fetchMock, SET_CAP)[0]))).toEqual({ dailyCap: null, reason: 'The relay is gone' });
  });
});
