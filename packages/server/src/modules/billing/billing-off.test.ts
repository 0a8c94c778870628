import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, seedUser, startTestApp, type TTestApp } from '../../../test/app';
import { registerThroughForm } from '../../../test/registration';
import { loadConfig } from '../../platform/config';

/** Issue 48 §5: a single-company install (`BILLING=off`), and registration the operator closes. */
let off: TTestApp;
let closed: TTestApp;
beforeAll(async () => {
  off = await startTestApp({ BILLING: 'off', CAPTCHA_COST: '20' });
  closed = await startTestApp({ BILLING: 'off', REGISTRATION: 'closed' }, { databaseUrl: off.databaseUrl });
});
afterAll(async () => {
  await closed?.close();
  await off?.close();
});

describe('BILLING=off', () => {
  it('says so to the pages, and sells nothing', async () => {
    expect((await off.app.inject({ url: '/api/billing/options' })).json()).toMatchObject({
      billing: false,
      registration: 'open',
      stripePublishableKey: null,
    });
    const user = await seedUser(off.platform);
    const agent = createAgent(off.app);
    await agent.signIn(user.email, user.password);
    expect((await agent.get('/api/user-information')).json().data.billing).toBe(false);
    expect((await agent.get('/api/subscription')).statusCode).toBe(404);
    expect((await agent.post('/api/credits/purchase', { credits: 1000 })).statusCode).toBe(404);
    expect((await agent.post('/api/subscription/change', { planId: 3 })).statusCode).toBe(404);
  });

  it('opens every plan gate: a user on the free plan may connect sending accounts and schedule', async () => {
    const user = await seedUser(off.platform);
    const agent = createAgent(off.app);
    await agent.signIn(user.email, user.password);
    const me = (await agent.get('/api/user-information')).json().data;
    expect(me.plan.isFree).toBe(true);
    expect((await agent.get('/api/settings/account/get-providers')).json()).toMatchObject({ canCreate: true });
    const content = (await agent.get('/api/email/send-email-content')).json().data;
    expect(content.allowsScheduling).toBe(true);
    // Spam tests are free: the pages show no price and never gate on credits.
    expect(content.spamTestCredits).toBe(0);
  });

  it('charges nothing for a spam test, and refuses Stripe keys beside it', () => {
    expect(off.config.spamTest.credits).toBe(0);
    expect(() =>
      loadConfig({ BILLING: 'off', STRIPE_SECRET_KEY: 'sk_test_x', STRIPE_PUBLISHABLE_KEY: 'pk_test_x' }, []),
    ).toThrow(/BILLING=off/);
  });

  it('registers a visitor on the free plan whatever plan the form names', async () => {
    const agent = createAgent(off.app);
    const email = `solo-${Date.now()}@example.com`;
    const response = await registerThroughForm(agent, { name: 'Solo', email, password: 'secret123', package_id: '3' });
    expect(response.statusCode, response.body).toBe(200);
    expect((await agent.get('/api/user-information')).json().data.plan.isFree).toBe(true);
  });
});

describe('REGISTRATION=closed', () => {
  it('refuses every registration and says why; the operator adds users', async () => {
    expect((await closed.app.inject({ url: '/api/billing/options' })).json().registration).toBe('closed');
    const agent = createAgent(closed.app);
    const email = `nobody-${Date.now()}@example.com`;
    const response = await registerThroughForm(agent, { name: 'Nobody', email, password: 'secret123' });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ code: 'REGISTRATION_CLOSED' });
    expect(await closed.platform.db.selectFrom('users').select('id').where('email', '=', email).execute()).toEqual([]);
  });
});
