import type { TSubscriptionState, TUserInformation } from '@sendwell/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createQueryClient } from '../../app/queryClient';
import { USER_QUERY_KEY } from '../../app/session';
import { callsTo, stubApi } from '../../test/api';
import { PLANS } from '../../test/billing';
import { jsonResponse, renderWithApp } from '../../test/render';
import { buildUser } from '../../test/user';
import { SubscriptionPage } from './SubscriptionPage';

const CREDIT_PACKS = [
  { credits: 1000, price: 10 },
  { credits: 5000, price: 40 },
];

const onPro: TSubscriptionState = {
  planId: 3,
  subscription: { status: 'active', currentPeriodEnd: '2026-12-22T12:00:00.000Z' },
  hasCard: true,
};
const onFree: TSubscriptionState = { planId: 2, subscription: null, hasCard: false };

const stubBilling = (
  subscription: TSubscriptionState,
  stripePublishableKey: string | null,
  extra: Record<string, unknown> = {},
) =>
  stubApi({
    'GET /api/packages': { data: PLANS },
    'GET /api/billing/options': { stripePublishableKey, creditPacks: CREDIT_PACKS },
    'GET /api/subscription': { data: subscription },
    ...extra,
  });

const renderPage = (planId: number) => {
  const queryClient = createQueryClient();
  const plan = PLANS.find((candidate) => candidate.id === planId)!;
  queryClient.setQueryData(
    USER_QUERY_KEY,
    buildUser({ plan: { id: plan.id, name: plan.name, isFree: plan.isFree }, free: plan.isFree }),
  );
  renderWithApp(<SubscriptionPage />, queryClient);
  return queryClient;
};

describe('SubscriptionPage', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('marks the current plan, offers the others by price and shows when the subscription renews', async () => {
    stubBilling(onPro, 'pk_test_123');
    renderPage(3);

    const pro = await screen.findByTestId('subscription-plan-3');
    expect(within(pro).getByTestId('current-plan').textContent).toBe('Current plan');
    expect(within(pro).queryByRole('button')).toBeNull();

    const free = screen.getByTestId('subscription-plan-2');
    expect(within(free).queryByTestId('current-plan')).toBeNull();
    await waitFor(() =>
      expect((within(free).getByRole('button', { name: 'Downgrade' }) as HTMLButtonElement).disabled).toBe(false),
    );

    expect(await screen.findByText('Active')).toBeTruthy();
    expect(screen.getByTestId('renews-on').textContent).toBe('Renews on December 22, 2026');
    expect(screen.queryByText('Payments are not set up on this server')).toBeNull();
  });

  it('says paid plans and purchases are unavailable while Stripe is not configured', async () => {
    stubBilling(onFree, null);
    renderPage(2);

    expect(await screen.findByText('Payments are not set up on this server')).toBeTruthy();
    const free = await screen.findByTestId('subscription-plan-2');
    expect(within(free).getByTestId('current-plan')).toBeTruthy();

    const pro = screen.getByTestId('subscription-plan-3');
    expect(pro.textContent).toContain('Paid plans are not available on this server yet.');
    expect((within(pro).getByRole('button', { name: 'Upgrade' }) as HTMLButtonElement).disabled).toBe(true);

    expect(screen.getByText(/Credit purchases are not available on this server\./)).toBeTruthy();
    // A customer is told what they can do, never the operator's commands (issue 29 item 6).
    expect(document.body.textContent).not.toMatch(/npm run admin|set-plan|grant-credits/);
    expect(screen.getAllByRole('link', { name: /contact us/i }).length).toBeGreaterThan(0);
    // The free plan is named once, not 'Free · Free'.
    expect(screen.getByText('Current plan', { selector: 'p' }).nextElementSibling?.textContent).toBe('Free');
    expect(screen.queryByRole('button', { name: /^Buy/ })).toBeNull();
    expect(screen.queryByTestId('card-field')).toBeNull();
  });

  it('asks before a downgrade, then moves the current plan mark', async () => {
    const fetchMock = stubBilling(onPro, 'pk_test_123', {
      // The card stays on file after a downgrade.
      'POST /api/subscription/change': {
        status: true,
        message: 'Your plan has been changed.',
        data: { ...onFree, hasCard: true },
      },
      'GET /api/user-information': { data: buildUser({ plan: { id: 2, name: 'Free', isFree: true } }) },
    });
    renderPage(3);
    const free = await screen.findByTestId('subscription-plan-2');
    const downgrade = within(free).getByRole('button', { name: 'Downgrade' });
    await waitFor(() => expect((downgrade as HTMLButtonElement).disabled).toBe(false));

    fireEvent.click(downgrade);
    const dialog = await screen.findByRole('dialog');
    expect(dialog.textContent).toContain('Downgrade to Free?');
    expect(within(dialog).queryByTestId('card-field')).toBeNull();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Downgrade' }));

    expect(await screen.findByText('Your plan has been changed.')).toBeTruthy();
    await waitFor(() =>
      expect(within(screen.getByTestId('subscription-plan-2')).getByTestId('current-plan')).toBeTruthy(),
    );
    expect(callsTo(fetchMock, 'POST /api/subscription/change').map((body) => JSON.parse(String(body)))).toEqual([
      { package_id: 2 },
    ]);
  });

  it('buys a credit pack with the card on file and takes the new balance', async () => {
    const fetchMock = stubBilling(onPro, 'pk_test_123', {
      'POST /api/credits/purchase': () =>
        jsonResponse({
          status: true,
          message: '1,000 credits were added to your balance.',
          credit: { totalCredit: 2000, usedCredit: 40 },
        }),
    });
    const queryClient = renderPage(3);
    expect(await screen.findByText('The card on file is charged.', { exact: false })).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: 'Buy' }));
    expect(await screen.findByText('Please choose one of the credit packs.')).toBeTruthy();

    fireEvent.click(screen.getByRole('radio', { name: /1,000 credits/ }));
    fireEvent.click(screen.getByRole('button', { name: 'Buy 1,000 credits for $10' }));

    expect(await screen.findByText('1,000 credits were added to your balance.')).toBeTruthy();
    expect(queryClient.getQueryData<TUserInformation>(USER_QUERY_KEY)?.credit.totalCredit).toBe(2000);
    expect(callsTo(fetchMock, 'POST /api/credits/purchase').map((body) => JSON.parse(String(body)))).toEqual([
      { credits: 1000 },
    ]);
  });
});
