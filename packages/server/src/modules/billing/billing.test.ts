import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, seedUser, startTestApp, type TTestApp } from '../../../test/app';
import { registerThroughForm } from '../../../test/registration';
import { startStripeFake, type TStripeFake } from '../../../test/stripe-fake';
import { getBalance } from '../credits/credits.service';

const WEBHOOK_SECRET = 'whsec_test_secret';
let t: TTestApp;
let fake: TStripeFake;
const signer = new Stripe('sk_test_signer');

beforeAll(async () => {
  fake = await startStripeFake({ prices: ['price_pro', 'price_business'] });
  t = await startTestApp({
    CAPTCHA_COST: '20',
    REGISTRATION_LIMIT_PER_IP: '1000',
    STRIPE_SECRET_KEY: 'sk_test_sendwell',
    STRIPE_PUBLISHABLE_KEY: 'pk_test_sendwell',
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_API_URL: fake.url,
  });
  await t.platform.db.updateTable('plans').set({ stripe_price_id: 'price_pro' }).where('id', '=', 3).execute();
  await t.platform.db.updateTable('plans').set({ stripe_price_id: 'price_business' }).where('id', '=', 4).execute();
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});

let counter = 0;
const newEmail = () => `payer${++counter}-${Date.now()}@example.com`;

const entriesOf = async (userId: number) =>
  (
    await t.platform.db
      .selectFrom('credit_entries')
      .select(['type', 'quantity', 'reference'])
      .where('user_id', '=', userId)
      .orderBy('id')
      .execute()
  ).map((entry) => [entry.type, entry.quantity]);

const userByEmail = (email: string) =>
  t.platform.db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();

/** Delivers an event as Stripe does: JSON body, `Stripe-Signature` over the exact bytes. */
const deliver = (event: object, { secret = WEBHOOK_SECRET, timestamp = Math.floor(Date.now() / 1000) } = {}) => {
  const payload = JSON.stringify(event);
  const signature = signer.webhooks.generateTestHeaderString({ payload, secret, timestamp });
  return t.app.inject({
    method: 'POST',
    url: '/api/billing/stripe-webhook',
    headers: { 'content-type': 'application/json', 'stripe-signature': signature },
    payload,
  });
};

let eventCounter = 0;
const event = (type: string, object: object) => ({
  id: `evt_test_${++eventCounter}_${Date.now()}`,
  object: 'event',
  type,
  created: Math.floor(Date.now() / 1000),
  data: { object },
});

const paidSignUp = async (planId = 3) => {
  const agent = createAgent(t.app);
  const email = newEmail();
  const response = await registerThroughForm(agent, {
    name: 'Paula Payer',
    email,
    password: 'secret123',
    package_id: String(planId),
    stripeToken: 'tok_visa',
  });
  expect(response.statusCode, response.body).toBe(200);
  const user = (await userByEmail(email))!;
  return { agent, user, body: response.json() };
};

describe('paid registration', () => {
  it('creates the Stripe customer and subscription before the user, with idempotency keys, and adds the first month’s credits', async () => {
    const before = fake.requests.length;
    const { agent, user, body } = await paidSignUp();
    expect(body.stripe_id).toMatch(/^cus_/);
    expect(user).toMatchObject({ plan_id: 3, stripe_customer_id: body.stripe_id, subscription_status: 'active' });
    expect(user.stripe_subscription_id).toMatch(/^sub_/);

    const calls = fake.requests.slice(before);
    expect(calls.map((call) => `${call.method} ${call.path}`)).toEqual([
      'POST /v1/customers',
      'POST /v1/subscriptions',
    ]);
    expect(calls[0]!.params).toMatchObject({ email: user.email, source: 'tok_visa' });
    expect(calls[1]!.params).toMatchObject({
      items: [{ price: 'price_pro' }],
      payment_behavior: 'error_if_incomplete',
    });
    for (const call of calls) expect(call.idempotencyKey).toMatch(new RegExp(`^sendwell-register-${user.id}-`));

    expect(await entriesOf(user.id)).toEqual([
      ['trial', 300],
      ['mon-balance-add', 5000],
    ]);
    expect((await agent.get('/api/user-information')).json().data).toMatchObject({
      free: false,
      credit: { totalCredit: 5300 },
    });
    const subscription = (await agent.get('/api/subscription')).json().data;
    expect(subscription).toMatchObject({ planId: 3, hasCard: true, subscription: { status: 'active' } });
    expect(Date.parse(subscription.subscription.currentPeriodEnd)).toBeGreaterThan(Date.now());
  });

  it('leaves no user behind when the card is declined, and shows Stripe’s message', async () => {
    for (const token of ['tok_chargeDeclined', 'tok_chargeCustomerFail']) {
      const email = newEmail();
      const customersBefore = fake.customers.size;
      const response = await registerThroughForm(createAgent(t.app), {
        name: 'Declined Dan',
        email,
        password: 'secret123',
        package_id: '3',
        stripeToken: token,
      });
      expect(response.statusCode, token).toBe(402);
      expect(response.json()).toMatchObject({
        status: false,
        message: 'Your card was declined.',
        code: 'CARD_DECLINED',
      });
      expect(await userByEmail(email)).toBeUndefined();
      // A customer whose card attached but could not pay is deleted again.
      const created = [...fake.customers.values()].slice(customersBefore);
      expect(created.every((customer) => customer.deleted)).toBe(true);
    }
  });

  it('needs a card for a paid plan, with the spec’s card message', async () => {
    const response = await registerThroughForm(createAgent(t.app), {
      name: 'No Card',
      email: newEmail(),
      password: 'secret123',
      package_id: '3',
    });
    expect(response.statusCode).toBe(422);
    expect(response.json().errors.stripeToken).toEqual(['Please enter the correct information in the card field!']);
  });

  it('gives a referred sign-up without a plan the sendwell-pro plan', async () => {
    const referrer = await seedUser(t.platform);
    const email = newEmail();
    const response = await registerThroughForm(createAgent(t.app), {
      name: 'Referred Rita',
      email,
      password: 'secret123',
      referred_by: referrer.email,
      stripeToken: 'tok_visa',
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(await userByEmail(email)).toMatchObject({ plan_id: 3, referred_by: referrer.email });
  });
});

describe('Stripe webhooks (R11)', () => {
  it('refuses a bad signature, a foreign secret and a delivery signed more than 300 s ago', async () => {
    const { user } = await paidSignUp();
    const invoice = { id: 'in_webhook_refused', object: 'invoice', customer: user.stripe_customer_id, status: 'paid' };
    const tampered = await t.app.inject({
      method: 'POST',
      url: '/api/billing/stripe-webhook',
      headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=deadbeef' },
      payload: JSON.stringify(event('invoice.paid', invoice)),
    });
    const foreign = await deliver(event('invoice.paid', invoice), { secret: 'whsec_someone_else' });
    const stale = await deliver(event('invoice.paid', invoice), { timestamp: Math.floor(Date.now() / 1000) - 301 });
    for (const response of [tampered, foreign, stale]) {
      expect(response.statusCode).toBe(400);
      expect(response.json().code).toBe('BAD_SIGNATURE');
    }
    expect(await entriesOf(user.id)).toEqual([
      ['trial', 300],
      ['mon-balance-add', 5000],
    ]);
  });

  it('adds a month’s credits for each paid invoice, once per event id and once per invoice', async () => {
    const { user } = await paidSignUp();
    const renewal = event('invoice.paid', {
      id: `in_renewal_${user.id}`,
      object: 'invoice',
      customer: user.stripe_customer_id,
      status: 'paid',
      billing_reason: 'subscription_cycle',
    });
    const first = await deliver(renewal);
    expect(first.json()).toEqual({ received: true, duplicate: false });
    const replay = await deliver(renewal);
    expect(replay.json()).toEqual({ received: true, duplicate: true });
    // The same invoice under another event id (Stripe resends) still pays once.
    await deliver({ ...renewal, id: `${renewal.id}_again` });
    expect((await getBalance(t.platform.db, user.id)).totalCredit).toBe(10_300);
  });

  it('answers 200 to events it does not use', async () => {
    const response = await deliver(event('charge.refund.updated', { id: 're_1', object: 'refund' }));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ received: true, duplicate: false });
  });

  it('ends a paid plan when Stripe deletes the subscription: monthly credits removed, free plan', async () => {
    const { user } = await paidSignUp();
    const response = await deliver(
      event('customer.subscription.deleted', {
        id: user.stripe_subscription_id,
        object: 'subscription',
        customer: user.stripe_customer_id,
        status: 'canceled',
        items: { object: 'list', data: [] },
      }),
    );
    expect(response.statusCode).toBe(200);
    expect(await userByEmail(user.email)).toMatchObject({ plan_id: 2, stripe_subscription_id: null });
    expect(await entriesOf(user.id)).toEqual([
      ['trial', 300],
      ['mon-balance-add', 5000],
      ['mon-balance-remove', -5000],
    ]);
  });
});

describe('plan changes and credit purchases', () => {
  it('moves a free user to a paid plan, across paid plans, and back to free', async () => {
    const user = await seedUser(t.platform);
    const agent = createAgent(t.app);
    await agent.signIn(user.email, user.password);

    const noCard = await agent.post('/api/subscription/change', { package_id: 3 });
    expect(noCard.statusCode).toBe(422);
    expect(noCard.json().errors.stripeToken).toBeDefined();

    const upgrade = await agent.post('/api/subscription/change', { package_id: 3, stripeToken: 'tok_visa' });
    expect(upgrade.statusCode, upgrade.body).toBe(200);
    expect(upgrade.json().data).toMatchObject({ planId: 3, hasCard: true, subscription: { status: 'active' } });
    expect((await getBalance(t.platform.db, user.id)).totalCredit).toBe(5300);

    // The card on file pays for the switch; Stripe keeps the same subscription.
    const before = (await userByEmail(user.email))!;
    const business = await agent.post('/api/subscription/change', { package_id: 4 });
    expect(business.statusCode, business.body).toBe(200);
    const after = (await userByEmail(user.email))!;
    expect(after.plan_id).toBe(4);
    expect(after.stripe_subscription_id).toBe(before.stripe_subscription_id);
    expect(fake.subscriptions.get(after.stripe_subscription_id!)?.price).toBe('price_business');

    const downgrade = await agent.post('/api/subscription/change', { package_id: 2 });
    expect(downgrade.statusCode, downgrade.body).toBe(200);
    expect(downgrade.json().data).toMatchObject({ planId: 2, subscription: null });
    expect(fake.subscriptions.get(after.stripe_subscription_id!)?.status).toBe('canceled');
    expect((await entriesOf(user.id)).at(-1)).toEqual(['mon-balance-remove', -25000]);
  });

  it('sells a credit pack once, and a declined card changes nothing', async () => {
    const user = await seedUser(t.platform);
    const agent = createAgent(t.app);
    await agent.signIn(user.email, user.password);

    const bought = await agent.post('/api/credits/purchase', { credits: 1000, stripeToken: 'tok_visa' });
    expect(bought.statusCode, bought.body).toBe(200);
    expect(bought.json()).toMatchObject({ status: true, credit: { totalCredit: 1300 } });
    const intent = [...fake.paymentIntents.values()].at(-1)!;
    expect(intent).toMatchObject({ amount: 1000, currency: 'usd', status: 'succeeded' });
    const purchaseCalls = fake.requests.filter((call) => call.path === '/v1/payment_intents');
    expect(purchaseCalls.at(-1)!.idempotencyKey).toMatch(/^sendwell-credits-/);

    // Stripe's webhook for the same payment adds nothing more.
    await deliver(event('payment_intent.succeeded', intent));
    expect((await getBalance(t.platform.db, user.id)).totalCredit).toBe(1300);

    // The card on file pays for the next pack.
    expect((await agent.post('/api/credits/purchase', { credits: 5000 })).statusCode).toBe(200);
    expect((await getBalance(t.platform.db, user.id)).totalCredit).toBe(6300);

    const declined = await agent.post('/api/credits/purchase', {
      credits: 1000,
      stripeToken: 'tok_chargeCustomerFail',
    });
    expect(declined.statusCode).toBe(402);
    expect(declined.json().message).toBe('Your card was declined.');
    expect((await getBalance(t.platform.db, user.id)).totalCredit).toBe(6300);
    expect((await entriesOf(user.id)).filter(([type]) => type === 'sale')).toEqual([
      ['sale', 1000],
      ['sale', 5000],
    ]);

    const oddPack = await agent.post('/api/credits/purchase', { credits: 7, stripeToken: 'tok_visa' });
    expect(oddPack.statusCode).toBe(422);
  });

  it('every POST Sendwell sent to Stripe carried an idempotency key', () => {
    const posts = fake.requests.filter((call) => call.method === 'POST');
    expect(posts.length).toBeGreaterThan(5);
    expect(posts.filter((call) => !call.idempotencyKey)).toEqual([]);
  });
});

describe('billing without Stripe', () => {
  it('says paid plans and purchases are unavailable, and has no webhook', async () => {
    const plain = await startTestApp();
    try {
      const agent = createAgent(plain.app);
      expect((await agent.get('/api/billing/options')).json()).toMatchObject({ stripePublishableKey: null });
      const user = await seedUser(plain.platform);
      await agent.signIn(user.email, user.password);
      const purchase = await agent.post('/api/credits/purchase', { credits: 1000, stripeToken: 'tok_visa' });
      expect(purchase.statusCode).toBe(409);
      const info = (await agent.get('/api/ajax/get-credit-info')).json();
      expect(info).toMatchObject({ status: true, userCredit: 300, usedCredit: 0, isSmtp: false, isGmail: false });
      expect(info.genericEmails).toContain('info');
      const webhook = await plain.app.inject({ method: 'POST', url: '/api/billing/stripe-webhook', payload: {} });
      expect(webhook.statusCode).toBe(404);
    } finally {
      await plain.close();
    }
  });
});
