import { BULK_MEMBERS_MAX } from '@sendwell/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInWithSmtp, startTestApp, type TTestApp } from '../../../test/app';

/** Issue 48 §2: the integrators' member calls by address, one function behind them (saveMembers). */
let t: TTestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const integrator = async () => {
  // Single opt-in unless a test says otherwise (new lists ask for confirmation).
  const { user, agent, list } = await signedInWithSmtp(t, { list: true, singleOptIn: true });
  const listId = list!.id;
  const key = (
    await agent.post('/api/settings/api-keys', { name: 'CRM', scopes: ['lists:read', 'lists:write'] })
  ).json().key as string;
  const api = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) =>
    t.app.inject({ method, url, headers: { authorization: `Bearer ${key}` }, ...(payload ? { payload } : {}) });
  const members = async () =>
    (
      await t.platform.db
        .selectFrom('list_members')
        .select(['email', 'fullname', 'subscribed', 'fields'])
        .where('list_id', '=', listId)
        .orderBy('email')
        .execute()
    ).map((row) => ({ ...row }));
  return { user, agent, listId, api, members };
};

describe('member calls by address (issue 48 §2)', () => {
  it('adds an address, then updates the same member in any case, merging fields', async () => {
    const { listId, api, members } = await integrator();
    const added = await api('PUT', `/api/mailing-lists/${listId}/members`, {
      email: 'Ann@Example.com',
      fullname: 'Ann',
      fields: { plan: 'gold' },
    });
    expect(added.statusCode, added.body).toBe(200);
    expect(added.json()).toMatchObject({ created: true, data: { email: 'Ann@example.com', subscribe: 1 } });
    const updated = await api('PUT', `/api/mailing-lists/${listId}/members`, {
      email: 'ann@example.com',
      fields: { city: 'Oslo' },
    });
    expect(updated.json()).toMatchObject({ created: false, data: { fullname: 'Ann' } });
    expect(await members()).toEqual([
      { email: 'Ann@example.com', fullname: 'Ann', subscribed: true, fields: { plan: 'gold', city: 'Oslo' } },
    ]);
    // An update that does not name the subscription keeps it; one that does sets it.
    await api('POST', `/api/mailing-lists/${listId}/members/unsubscribe`, { email: 'ANN@example.com' });
    await api('PUT', `/api/mailing-lists/${listId}/members`, { email: 'ann@example.com', fullname: 'Ann B' });
    expect((await members())[0]).toMatchObject({ fullname: 'Ann B', subscribed: false });
    await api('PUT', `/api/mailing-lists/${listId}/members`, { email: 'ann@example.com', subscribed: true });
    expect((await members())[0]!.subscribed).toBe(true);
  });

  it('refuses a bad address with a 422 and stores nothing', async () => {
    const { listId, api, members } = await integrator();
    const response = await api('PUT', `/api/mailing-lists/${listId}/members`, { email: 'not an address' });
    expect(response.statusCode).toBe(422);
    expect(await members()).toEqual([]);
  });

  it('unsubscribes and removes one address, and says 404 for one not on the list', async () => {
    const { listId, api, members } = await integrator();
    await api('PUT', `/api/mailing-lists/${listId}/members`, { email: 'bob@example.com' });
    expect(
      (await api('POST', `/api/mailing-lists/${listId}/members/unsubscribe`, { email: 'x@example.com' })).statusCode,
    ).toBe(404);
    const removed = await api('POST', `/api/mailing-lists/${listId}/members/remove`, { email: 'BOB@example.com' });
    expect(removed.statusCode, removed.body).toBe(200);
    expect(await members()).toEqual([]);
    expect(
      (await api('POST', `/api/mailing-lists/${listId}/members/remove`, { email: 'bob@example.com' })).statusCode,
    ).toBe(404);
  });

  it('adds up to 10,000 members in one call with a result per row', async () => {
    const { listId, api, members } = await integrator();
    await api('PUT', `/api/mailing-lists/${listId}/members`, { email: 'known@example.com', fullname: 'Known' });
    const rows = [
      { email: 'known@example.com', fields: { source: 'bulk' } },
      { email: 'new@example.com', fullname: 'New' },
      { email: 'NEW@example.com', fullname: 'Again' },
      { email: 'broken', fullname: 'Broken' },
      { email: 'weird@example.com', fields: { 'bad name': 'x' } },
      { email: 'quiet@example.com', subscribed: false },
    ];
    const response = await api('POST', `/api/mailing-lists/${listId}/members/bulk`, { members: rows });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().counts).toEqual({ added: 2, updated: 1, invalid: 2, duplicate: 1, confirmations: 0 });
    expect(response.json().results.map((row: { result: string }) => row.result)).toEqual([
      'updated',
      'added',
      'duplicate',
      'invalid',
      'invalid',
      'added',
    ]);
    expect(response.json().results[3].message).toBe('Please enter a valid email address.');
    expect(await members()).toEqual([
      { email: 'known@example.com', fullname: 'Known', subscribed: true, fields: { source: 'bulk' } },
      { email: 'new@example.com', fullname: 'New', subscribed: true, fields: {} },
      { email: 'quiet@example.com', fullname: '', subscribed: false, fields: {} },
    ]);
    const tooMany = await api('POST', `/api/mailing-lists/${listId}/members/bulk`, {
      members: Array.from({ length: BULK_MEMBERS_MAX + 1 }, (_, index) => ({ email: `m${index}@example.com` })),
    });
    expect(tooMany.statusCode).toBe(422);
    expect(await members()).toHaveLength(3);
  });

  it('takes 10,000 members in one call', async () => {
    const { listId, api } = await integrator();
    const response = await api('POST', `/api/mailing-lists/${listId}/members/bulk`, {
      members: Array.from({ length: BULK_MEMBERS_MAX }, (_, index) => ({
        email: `m${index}@example.com`,
        fullname: `M ${index}`,
      })),
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().counts.added).toBe(BULK_MEMBERS_MAX);
    const list = (await api('GET', `/api/mailing-lists/get-list-info/${listId}`)).json().data;
    expect(list.members_count).toBe(BULK_MEMBERS_MAX);
  });

  it('queues member events for webhooks in the same transaction, only for changes', async () => {
    const { user, listId, api } = await integrator();
    const { id: endpointId } = await t.platform.db
      .insertInto('webhook_endpoints')
      .values({
        user_id: user.id,
        url: 'https://hooks.example.com/x',
        event_types: ['member.subscribed', 'member.unsubscribed'],
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await api('PUT', `/api/mailing-lists/${listId}/members`, { email: 'eve@example.com' });
    await api('PUT', `/api/mailing-lists/${listId}/members`, { email: 'eve@example.com', fullname: 'Eve' });
    await api('POST', `/api/mailing-lists/${listId}/members/unsubscribe`, { email: 'eve@example.com' });
    await api('POST', `/api/mailing-lists/${listId}/members/unsubscribe`, { email: 'eve@example.com' });
    await api('POST', `/api/mailing-lists/${listId}/members/bulk`, {
      members: [{ email: 'eve@example.com', subscribed: true }, { email: 'bad' }],
    });
    const queued = await t.platform.db
      .selectFrom('webhook_deliveries')
      .select(['type', 'ordering_key', 'payload'])
      .where('endpoint_id', '=', endpointId)
      .orderBy('id')
      .execute();
    expect(queued.map((row) => row.type)).toEqual(['member.subscribed', 'member.unsubscribed', 'member.subscribed']);
    expect(queued.every((row) => row.ordering_key === 'eve@example.com')).toBe(true);
    expect(queued[0]!.payload).toMatchObject({ data: { list_id: listId, source: 'api' } });
  });

  it('asks a new address on a double opt-in list to confirm, and tells webhooks when it does', async () => {
    const { user, listId, api, members } = await integrator();
    await t.platform.db.updateTable('mailing_lists').set({ double_opt_in: true }).where('id', '=', listId).execute();
    const { id: endpointId } = await t.platform.db
      .insertInto('webhook_endpoints')
      .values({
        user_id: user.id,
        url: 'https://hooks.example.com/x',
        event_types: ['member.subscribed', 'member.confirmed'],
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const added = await api('PUT', `/api/mailing-lists/${listId}/members`, {
      email: 'dora@example.com',
      fullname: 'Dora',
    });
    expect(added.statusCode, added.body).toBe(200);
    expect(added.json()).toMatchObject({
      created: true,
      confirmation_sent: true,
      data: { subscribe: 0, unconfirmed: true },
    });
    expect(await members()).toEqual([{ email: 'dora@example.com', fullname: 'Dora', subscribed: false, fields: {} }]);
    // The confirmation email, through the engine, with the link.
    const confirmation = await t.platform.db
      .selectFrom('sends')
      .innerJoin('send_recipients', 'send_recipients.send_id', 'sends.id')
      .select(['sends.source', 'send_recipients.email', 'send_recipients.fields'])
      .where('sends.user_id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(confirmation).toMatchObject({ source: 'confirmation', email: 'dora@example.com' });
    const link = String((confirmation.fields as Record<string, string>).confirm_url);
    // Asked again (an integrator's retry): the same member, no second row.
    const again = await api('POST', `/api/mailing-lists/${listId}/members/bulk`, {
      members: [{ email: 'dora@example.com' }, { email: 'eli@example.com' }],
    });
    expect(again.json().counts).toMatchObject({ added: 1, updated: 1, confirmations: 1 });
    const types = async () =>
      (
        await t.platform.db
          .selectFrom('webhook_deliveries')
          .select('type')
          .where('endpoint_id', '=', endpointId)
          .orderBy('id')
          .execute()
      ).map((row) => row.type);
    expect(await types()).toEqual([]);
    const token = link.split('/').at(-1)!;
    const confirmed = await t.app.inject({ method: 'POST', url: `/api/subscribe/confirm/${token}` });
    expect(confirmed.statusCode).toBeLessThan(400);
    expect((await members()).find((member) => member.email === 'dora@example.com')?.subscribed).toBe(true);
    expect(await types()).toEqual(['member.confirmed']);
  });
});
