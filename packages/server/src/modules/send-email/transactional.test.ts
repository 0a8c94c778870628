import { TRANSACTIONAL_MESSAGES } from '@sendwell/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, seedTestInboxAccount, seedUser, startTestApp, type TTestApp } from '../../../test/app';
import { dispatch, snapshotSend } from '../delivery/delivery.jobs';

/** Issue 48 §2: a saved template to one address, through the engine, exactly once per idempotency key. */
let t: TTestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const integrator = async () => {
  const user = await seedUser(t.platform, { planId: 3 });
  const agent = createAgent(t.app);
  await agent.signIn(user.email, user.password);
  const accountId = await seedTestInboxAccount(t.platform, user.id, 'news@acme.test');
  const template = (
    await agent.post('/api/templates', {
      name: 'Receipt',
      subject: 'Your order {{order}}',
      html: '<p>Hello {{name}}, order {{order}} is on its way. <a href="https://acme.test/track">Track it</a></p>',
    })
  ).json().data as { id: number };
  const key = (await agent.post('/api/settings/api-keys', { name: 'Shop', scopes: ['send', 'reports:read'] })).json()
    .key as string;
  const call = (body: object, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: '/api/email/transactional',
      headers: { authorization: `Bearer ${key}`, ...headers },
      payload: body,
    });
  return { user, agent, accountId, template, key, call };
};

const runSend = async (sendId: number) => {
  await snapshotSend(t.platform, sendId);
  await dispatch(t.platform, sendId);
};

describe('transactional sends (issue 48 §2)', () => {
  it('sends a template with merge data to one address through the engine, once per idempotency key', async () => {
    const { user, accountId, template, key, call } = await integrator();
    const body = {
      template_id: template.id,
      account: accountId,
      senderName: 'Acme Shop',
      to: 'buyer@example.com',
      name: 'Bea',
      data: { order: 'A-1001' },
    };
    const first = await call(body, { 'idempotency-key': 'order-A-1001' });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ queued: true, replayed: false });
    const sendId = first.json().send_id as number;

    // A retry of the same call (a timeout on the integrator's side) is the same send.
    const again = await call(body, { 'idempotency-key': 'order-A-1001' });
    expect(again.json()).toMatchObject({ send_id: sendId, replayed: true, message: TRANSACTIONAL_MESSAGES.replayed });
    // Two calls at once with a new key make one send between them.
    const [left, right] = await Promise.all([
      call({ ...body, data: { order: 'A-1002' } }, { 'idempotency-key': 'order-A-1002' }),
      call({ ...body, data: { order: 'A-1002' } }, { 'idempotency-key': 'order-A-1002' }),
    ]);
    expect(left.json().send_id).toBe(right.json().send_id);
    expect([left.json().replayed, right.json().replayed].sort()).toEqual([false, true]);
    // The same key with other parameters is refused, not sent.
    const reused = await call({ ...body, to: 'someone-else@example.com' }, { 'idempotency-key': 'order-A-1001' });
    expect(reused.statusCode).toBe(409);
    const sends = await t.platform.db
      .selectFrom('sends')
      .select(['id', 'source', 'subject'])
      .where('user_id', '=', user.id)
      .orderBy('id')
      .execute();
    expect(sends.map((send) => send.source)).toEqual(['transactional', 'transactional']);

    await runSend(sendId);
    const inbox = await t.platform.db
      .selectFrom('test_inbox_messages')
      .select(['subject', 'html_body', 'rcpt_to'])
      .where('user_id', '=', user.id)
      .execute();
    expect(inbox).toHaveLength(1);
    expect(inbox[0]!.subject).toBe('Your order A-1001');
    expect(inbox[0]!.rcpt_to).toEqual(['buyer@example.com']);
    expect(inbox[0]!.html_body).toContain('Hello Bea, order A-1001');
    // Tracked: its link goes through the click tracker.
    expect(inbox[0]!.html_body).toContain('/api/t/c/');

    const figures = await t.app.inject({
      url: `/api/history/sends/${sendId}/figures`,
      headers: { authorization: `Bearer ${key}` },
    });
    expect(figures.statusCode, figures.body).toBe(200);
    expect(figures.json().data).toMatchObject({
      send_id: sendId,
      status: 'finished',
      figures: { recipients: 1, accepted: 1, bouncedHard: 0, opened: 0 },
    });
  });

  it('emits message.bounced and send.finished from the engine for a refused address', async () => {
    const { user, accountId, template, call } = await integrator();
    // The endpoint as Settings saves it (its URL is never called here: the deliveries are read from the queue).
    const { id: endpointId } = await t.platform.db
      .insertInto('webhook_endpoints')
      .values({
        user_id: user.id,
        url: 'https://hooks.example.com/sendwell',
        event_types: ['message.bounced', 'send.finished'],
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const sent = await call({
      template_id: template.id,
      account: accountId,
      senderName: 'Acme',
      to: 'nobody@bounce.test',
    });
    expect(sent.statusCode, sent.body).toBe(200);
    await runSend(sent.json().send_id);
    const deliveries = await t.platform.db
      .selectFrom('webhook_deliveries')
      .select(['type', 'payload', 'ordering_key'])
      .where('endpoint_id', '=', endpointId)
      .orderBy('id')
      .execute();
    expect(deliveries.map((delivery) => delivery.type)).toEqual(['message.bounced', 'send.finished']);
    expect(deliveries[0]!.payload).toMatchObject({
      data: { send_id: sent.json().send_id, email: 'nobody@bounce.test', bounce: 'hard' },
    });
    expect(deliveries[1]!.payload).toMatchObject({
      data: { status: 'finished', figures: { recipients: 1, accepted: 0, bouncedHard: 1 } },
    });
    // A suppressed address is not sent to again: the call says so and nothing is queued for it.
    const again = await call({
      template_id: template.id,
      account: accountId,
      senderName: 'Acme',
      to: 'nobody@bounce.test',
    });
    expect(again.json()).toMatchObject({ queued: false, message: TRANSACTIONAL_MESSAGES.suppressed });
  });

  it("refuses another user's template and account, and a bad address, before sending anything", async () => {
    const owner = await integrator();
    const other = await integrator();
    const notMine = await other.call({
      template_id: owner.template.id,
      account: other.accountId,
      senderName: 'X',
      to: 'a@example.com',
    });
    expect(notMine.statusCode).toBe(404);
    const notMyAccount = await other.call({
      template_id: other.template.id,
      account: owner.accountId,
      senderName: 'X',
      to: 'a@example.com',
    });
    expect(notMyAccount.statusCode).toBe(422);
    const badAddress = await other.call({
      template_id: other.template.id,
      account: other.accountId,
      senderName: 'X',
      to: 'not an address',
    });
    expect(badAddress.statusCode).toBe(422);
    const figures = await t.app.inject({
      url: '/api/history/sends/1/figures',
      headers: { authorization: `Bearer ${other.key}` },
    });
    expect([404]).toContain(figures.statusCode);
    expect(await t.platform.db.selectFrom('sends').select('id').where('user_id', '=', other.user.id).execute()).toEqual(
      [],
    );
  });
});
