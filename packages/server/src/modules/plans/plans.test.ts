import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, seedUser, startTestApp, type TTestApp } from '../../../test/app';

let t: TTestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

describe('plans', () => {
  it('lists the seeded packages without a session, the free plan as id 2', async () => {
    const response = await t.app.inject({ url: '/api/packages' });
    expect(response.statusCode).toBe(200);
    const packages = response.json().data;
    expect(packages[0]).toMatchObject({ id: 2, name: 'Free', isFree: true, price: 0, allowsScheduling: false });
    expect(packages).toContainEqual(
      expect.objectContaining({ plan_name: 'sendwell-pro', isFree: false, price: 29, allowsScheduling: true }),
    );
  });

  it('answers check-schedule from the user’s plan', async () => {
    const free = await seedUser(t.platform);
    const pro = await seedUser(t.platform, { planId: 3 });
    const freeAgent = createAgent(t.app);
    await freeAgent.signIn(free.email, free.password);
    expect((await freeAgent.get('/api/scheduled-mails/check-schedule')).json()).toEqual({ createSchedule: false });
    const proAgent = createAgent(t.app);
    await proAgent.signIn(pro.email, pro.password);
    expect((await proAgent.get('/api/scheduled-mails/check-schedule')).json()).toEqual({ createSchedule: true });
  });
});
