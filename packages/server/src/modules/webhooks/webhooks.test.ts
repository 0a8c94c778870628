import { createHmac, timingSafeEqual } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, signedInWithSmtp, startTestApp, type TAgent, type TTestApp } from '../../../test/app';
import { startWebhookReceiver, type TReceived } from '../../../test/webhook-receiver';
import { findEndpointsDue } from './webhooks.repository';
import { deliverDue, nextAttemptAt, queueDueDeliveries } from './webhooks.service';

/** R44: signed, at least once, in order per member, retried with backoff, every URL through the guard. */
let t: TTestApp;
let strict: TTestApp;

beforeAll(async () => {
  // Receivers listen on loopback here, as an operator's development machine allows.
  t = await startTestApp({ WEBHOOK_ALLOW_LOOPBACK: 'true', WEBHOOK_TIMEOUT_SECONDS: '5' });
  // As deployed: loopback refused like every private address.
  strict = await startTestApp({}, { databaseUrl: t.databaseUrl });
});
afterAll(async () => {
  await strict?.close();
  await t?.close();
});

const signedIn = async (app: TTestApp = t) => {
  // Single opt-in: an address added is subscribed at once (`member.subscribed`).
  const { user, agent, list } = await signedInWithSmtp(app, { list: true, singleOptIn: true });
  return { user, agent, listId: list!.id };
};

const register = async (agent: TAgent, url: string, events: string[]) => {
  const response = await agent.post('/api/settings/webhooks', { url, events, description: 'CRM' });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { data: { id: number }; secret: string };
};

/** What a receiver does with the signature header: recompute, compare in constant time. */
const isSignedBy = (secret: string, received: TReceived) => {
  const header = String(received.headers['sendwell-signature']);
  const parts = Object.fromEntries(header.split(',').map((part) => part.split('=') as [string, string]));
  const expected = createHmac('sha256', secret).update(`${parts.t}.${received.body}`).digest('hex');
  return (
    parts.v1 !== undefined &&
    parts.v1.length === expected.length &&
    timingSafeEqual(Buffer.from(parts.v1), Buffer.from(expected)) &&
    Math.abs(Date.now() / 1000 - Number(parts.t)) < 300
  );
};

/** Every delivery of the endpoint becomes due now, as if its backoff had passed. */
const makeDue = (endpointId: number) =>
  sql`update webhook_deliveries set next_attempt_at = now() where endpoint_id = ${endpointId} and status = 'pending'`.execute(
    t.platform.db,
  );

describe('webhooks out (R44)', () => {
  it('signs each delivery with HMAC-SHA256 over the timestamp and the body', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const { agent, listId } = await signedIn();
      const { data: endpoint, secret } = await register(agent, receiver.url, ['member.subscribed']);
      expect(secret).toMatch(/^whsec_/);
      const added = await agent.put(`/api/mailing-lists/${listId}/members`, {
        email: 'Ann@Example.com',
        fullname: 'Ann',
      });
      expect(added.statusCode, added.body).toBe(200);
      expect(await deliverDue(t.platform, endpoint.id)).toBe(1);
      expect(receiver.received).toHaveLength(1);
      const [delivery] = receiver.received;
      expect(delivery!.json).toMatchObject({
        type: 'member.subscribed',
        data: { list_id: listId, email: 'Ann@example.com', fullname: 'Ann', source: 'app' },
      });
      expect(delivery!.headers['sendwell-event-id']).toBe(delivery!.json.id);
      expect(isSignedBy(secret, delivery!)).toBe(true);
      // A receiver that checks refuses a body changed in transit, or another endpoint's secret.
      expect(isSignedBy(secret, { ...delivery!, body: delivery!.body.replace('Ann', 'Bob') })).toBe(false);
      expect(isSignedBy('whsec_other', delivery!)).toBe(false);
      // The secret is stored encrypted, never in clear.
      const row = await t.platform.db
        .selectFrom('webhook_endpoints')
        .select('secret')
        .where('id', '=', endpoint.id)
        .executeTakeFirstOrThrow();
      expect(row.secret!.toString('latin1')).not.toContain(secret);
      const revealed = await agent.post(`/api/settings/webhooks/${endpoint.id}/secret`);
      expect(revealed.json().secret).toBe(secret);
    } finally {
      await receiver.close();
    }
  });

  it('retries after a 500 with backoff, with the same event id, and logs every answer', async () => {
    const receiver = await startWebhookReceiver((_received, index) => (index === 0 ? 500 : 200));
    try {
      const { agent, listId } = await signedIn();
      const { data: endpoint } = await register(agent, receiver.url, ['member.subscribed']);
      await agent.put(`/api/mailing-lists/${listId}/members`, { email: 'retry@example.com' });
      expect(await deliverDue(t.platform, endpoint.id)).toBe(0);
      expect(receiver.received).toHaveLength(1);
      const waiting = await t.platform.db
        .selectFrom('webhook_deliveries')
        .select(['status', 'attempts', 'next_attempt_at'])
        .where('endpoint_id', '=', endpoint.id)
        .executeTakeFirstOrThrow();
      expect(waiting).toMatchObject({ status: 'pending', attempts: 1 });
      expect(waiting.next_attempt_at.getTime()).toBeGreaterThan(Date.now() + 20_000);
      // Not due yet: nothing is sent again, and the minute's sweep leaves it be.
      expect(await deliverDue(t.platform, endpoint.id)).toBe(0);
      expect(receiver.received).toHaveLength(1);
      await makeDue(endpoint.id);
      expect(await queueDueDeliveries(t.platform)).toBeGreaterThanOrEqual(1);
      expect(await deliverDue(t.platform, endpoint.id)).toBe(1);
      expect(receiver.received.map((received) => received.json.id)).toEqual([
        receiver.received[0]!.json.id,
        receiver.received[0]!.json.id,
      ]);
      const log = (await agent.get(`/api/settings/webhooks/${endpoint.id}/deliveries`)).json();
      expect(log.data).toHaveLength(1);
      expect(log.data[0]).toMatchObject({ status: 'delivered', next_attempt_at: null });
      expect(log.data[0].attempts.map((attempt: { status_code: number }) => attempt.status_code)).toEqual([500, 200]);
      expect(log.data[0].attempts[0].response).toBe('failed with 500');
    } finally {
      await receiver.close();
    }
  });

  it('delivers in order per member: a member whose event failed waits, others go on', async () => {
    // The first event of ann fails once; everything else is taken.
    const receiver = await startWebhookReceiver((received) =>
      received.json.data.email === 'ann@example.com' && received.json.type === 'member.subscribed' && !annFailed++
        ? 503
        : 200,
    );
    let annFailed = 0;
    try {
      const { agent, listId } = await signedIn();
      const { data: endpoint } = await register(agent, receiver.url, ['member.subscribed', 'member.unsubscribed']);
      await agent.put(`/api/mailing-lists/${listId}/members`, { email: 'ann@example.com' });
      await agent.post(`/api/mailing-lists/${listId}/members/unsubscribe`, { email: 'ann@example.com' });
      await agent.put(`/api/mailing-lists/${listId}/members`, { email: 'bob@example.com' });
      await agent.put(`/api/mailing-lists/${listId}/members`, { email: 'ann@example.com', subscribed: true });
      await deliverDue(t.platform, endpoint.id);
      const seen = () => receiver.received.map((received) => `${received.json.data.email} ${received.json.type}`);
      // Ann's later events wait behind her first; Bob's does not.
      expect(seen()).toEqual(['ann@example.com member.subscribed', 'bob@example.com member.subscribed']);
      await makeDue(endpoint.id);
      await deliverDue(t.platform, endpoint.id);
      expect(seen()).toEqual([
        'ann@example.com member.subscribed',
        'bob@example.com member.subscribed',
        'ann@example.com member.subscribed',
        'ann@example.com member.unsubscribed',
        'ann@example.com member.subscribed',
      ]);
    } finally {
      await receiver.close();
    }
  });

  it('gives a delivery up a day after its event, and the member’s next event goes', async () => {
    const receiver = await startWebhookReceiver((received) =>
      received.json.data.email === 'gone@example.com' ? 500 : 200,
    );
    try {
      const { agent, listId } = await signedIn();
      const { data: endpoint } = await register(agent, receiver.url, ['member.subscribed', 'member.unsubscribed']);
      await agent.put(`/api/mailing-lists/${listId}/members`, { email: 'gone@example.com' });
      await sql`update webhook_deliveries set created_at = now() - interval '25 hours' where endpoint_id = ${endpoint.id}`.execute(
        t.platform.db,
      );
      await agent.post(`/api/mailing-lists/${listId}/members/remove`, { email: 'gone@example.com' });
      await agent.put(`/api/mailing-lists/${listId}/members`, { email: 'Gone@example.com', fullname: 'Back' });
      receiver.received.length = 0;
      await deliverDue(t.platform, endpoint.id);
      const statuses = await t.platform.db
        .selectFrom('webhook_deliveries')
        .select(['status', 'attempts'])
        .where('endpoint_id', '=', endpoint.id)
        .orderBy('id')
        .execute();
      // The day-old one failed for good after its attempt; the member's next event went after it.
      expect(statuses.map((row) => row.status)).toEqual(['failed', 'delivered']);
      expect(receiver.received.map((received) => received.json.data.email)).toEqual([
        'gone@example.com',
        'Gone@example.com',
      ]);
      expect(nextAttemptAt(1, new Date(Date.now() - 25 * 3_600_000))).toBeNull();
      const fresh = new Date();
      const next = nextAttemptAt(9, fresh, fresh)!;
      expect(next.getTime()).toBeLessThanOrEqual(fresh.getTime() + 24 * 3_600_000);
    } finally {
      await receiver.close();
    }
  });

  it('refuses loopback, private and metadata URLs at save, and at send when the guard refuses them', async () => {
    const { user, agent } = await signedIn(strict);
    for (const url of [
      'http://127.0.0.1:9/hook',
      'http://localhost:9/hook',
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.8/hook',
      'http://[::1]/hook',
      'http://[::ffff:127.0.0.1]/hook',
      'http://2130706433/hook',
      'http://0x7f000001/hook',
      'http://[fd00::1]/hook',
    ]) {
      const response = await agent.post('/api/settings/webhooks', { url, events: ['member.subscribed'] });
      expect({ url, status: response.statusCode }).toEqual({ url, status: 422 });
      expect(response.json().errors.url[0]).toMatch(/local, private or metadata|could not be found/);
    }
    expect(
      await strict.platform.db.selectFrom('webhook_endpoints').select('id').where('user_id', '=', user.id).execute(),
    ).toEqual([]);
    // A URL that passed once (saved where loopback was allowed) is checked again before each attempt.
    const receiver = await startWebhookReceiver();
    try {
      const { data: endpoint } = await register((await signedInOn(t, user)).agent, receiver.url, ['member.subscribed']);
      const list = (await agent.get('/api/mailing-lists')).json().data[0] as { id: number };
      await agent.put(`/api/mailing-lists/${list.id}/members`, { email: 'ssrf@example.com' });
      expect(await deliverDue(strict.platform, endpoint.id)).toBe(0);
      expect(receiver.received).toHaveLength(0);
      const log = (await agent.get(`/api/settings/webhooks/${endpoint.id}/deliveries`)).json();
      expect(log.data[0].attempts[0]).toMatchObject({ status_code: null });
      expect(log.data[0].attempts[0].response).toMatch(/local or private network address/);
    } finally {
      await receiver.close();
    }
  });

  it('holds the deliveries of a webhook turned off, and sends them once it is on again', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const { agent, listId } = await signedIn();
      const { data: endpoint } = await register(agent, receiver.url, ['member.subscribed']);
      const saved = { url: receiver.url, events: ['member.subscribed'], description: 'CRM' };
      await agent.post(`/api/settings/webhooks/${endpoint.id}`, { ...saved, is_enabled: false });
      await agent.put(`/api/mailing-lists/${listId}/members`, { email: 'later@example.com' });
      // Turned off when the event happened: nothing queued for it, nothing sent.
      expect(await deliverDue(t.platform, endpoint.id)).toBe(0);
      await agent.post(`/api/settings/webhooks/${endpoint.id}`, { ...saved, is_enabled: true });
      await agent.put(`/api/mailing-lists/${listId}/members`, { email: 'now@example.com' });
      // Deliveries queued while on and then held by a switch-off wait, and go when it is on.
      await agent.post(`/api/settings/webhooks/${endpoint.id}`, { ...saved, is_enabled: false });
      expect(await deliverDue(t.platform, endpoint.id)).toBe(0);
      expect(await findEndpointsDue(t.platform.db)).not.toContain(endpoint.id);
      await agent.post(`/api/settings/webhooks/${endpoint.id}`, { ...saved, is_enabled: true });
      expect(await deliverDue(t.platform, endpoint.id)).toBe(1);
      expect(receiver.received.map((received) => received.json.data.email)).toEqual(['now@example.com']);
    } finally {
      await receiver.close();
    }
  });

  it('sends a test event on request, once, and answers what the receiver said', async () => {
    const receiver = await startWebhookReceiver(() => 204);
    try {
      const { agent } = await signedIn();
      const { data: endpoint, secret } = await register(agent, receiver.url, ['send.finished']);
      const response = await agent.post(`/api/settings/webhooks/${endpoint.id}/test`);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ status: true, data: { type: 'webhook.test', status: 'delivered' } });
      expect(response.json().message).toMatch(/answered 204/);
      expect(receiver.received).toHaveLength(1);
      expect(isSignedBy(secret, receiver.received[0]!)).toBe(true);
    } finally {
      await receiver.close();
    }
  });

  it("answers 404 for another user's webhook, and only its owner's events reach it", async () => {
    const receiver = await startWebhookReceiver();
    try {
      const owner = await signedIn();
      const { data: endpoint } = await register(owner.agent, receiver.url, ['member.subscribed']);
      const other = await signedIn();
      for (const [method, url] of [
        ['GET', `/api/settings/webhooks/${endpoint.id}/deliveries`],
        ['POST', `/api/settings/webhooks/${endpoint.id}/test`],
        ['POST', `/api/settings/webhooks/${endpoint.id}/secret`],
        ['POST', `/api/settings/webhooks/${endpoint.id}`],
        ['DELETE', `/api/settings/webhooks/${endpoint.id}`],
      ] as const) {
        const response =
          method === 'GET'
            ? await other.agent.get(url)
            : method === 'DELETE'
              ? await other.agent.delete(url)
              : await other.agent.post(url, { url: receiver.url, events: ['member.subscribed'] });
        expect({ url, status: response.statusCode }).toEqual({ url, status: 404 });
      }
      await other.agent.put(`/api/mailing-lists/${other.listId}/members`, { email: 'theirs@example.com' });
      expect(await deliverDue(t.platform, endpoint.id)).toBe(0);
      expect(receiver.received).toHaveLength(0);
      expect((await other.agent.get('/api/settings/webhooks')).json().data).toEqual([]);
    } finally {
      await receiver.close();
    }
  });
});

/** The same user signed in on another app of the same database (a web process where loopback is allowed). */
const signedInOn = async (app: TTestApp, user: { email: string; password: string }) => {
  const agent = createAgent(app.app);
  await agent.signIn(user.email, user.password);
  return { agent };
};
