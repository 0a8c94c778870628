import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, seedUser, startTestApp, type TAgent, type TTestApp } from '../../../test/app';

let t: TTestApp;
let alice: TAgent;
let bob: TAgent;
let aliceIds: number[];
let bobId: number;

beforeAll(async () => {
  t = await startTestApp();
  const aliceUser = await seedUser(t.platform);
  const bobUser = await seedUser(t.platform);
  // 45 notifications for Alice at distinct times, titles "Report 01" … "Report 45".
  const rows = Array.from({ length: 45 }, (_, index) => ({
    user_id: aliceUser.id,
    title: `Report ${String(index + 1).padStart(2, '0')}`,
    body: index % 9 === 0 ? 'bounce spike on 100% of a list' : 'all fine',
    created_at: new Date(Date.UTC(2026, 0, 1, 0, index)),
  }));
  aliceIds = (await t.platform.db.insertInto('notifications').values(rows).returning('id').execute()).map((r) => r.id);
  bobId = (
    await t.platform.db
      .insertInto('notifications')
      .values({ user_id: bobUser.id, title: 'Bob private', body: 'for Bob' })
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id;
  alice = createAgent(t.app);
  await alice.signIn(aliceUser.email, aliceUser.password);
  bob = createAgent(t.app);
  await bob.signIn(bobUser.email, bobUser.password);
});
afterAll(async () => t?.close());

describe('the shared table helper, on notifications', () => {
  it('pages newest first by default with the spec’s meta', async () => {
    const response = await alice.get('/api/notifications?page=3&per_page=20');
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.meta).toEqual({ current_page: 3, last_page: 3, from: 41, to: 45, total: 45, per_page: 20 });
    expect(body.data.map((row: { title: string }) => row.title)).toEqual([
      'Report 05',
      'Report 04',
      'Report 03',
      'Report 02',
      'Report 01',
    ]);
    expect(body.unread).toBe(45);
  });

  it('sorts by an allowed column in either order', async () => {
    const ascending = (await alice.get('/api/notifications?column=title&order=asc&per_page=5')).json();
    expect(ascending.data[0].title).toBe('Report 01');
    const descending = (await alice.get('/api/notifications?column=title&order=desc&per_page=5')).json();
    expect(descending.data[0].title).toBe('Report 45');
  });

  it('refuses a sort column that is not on the allow-list', async () => {
    const response = await alice.get('/api/notifications?column=user_id');
    expect(response.statusCode).toBe(422);
    expect(response.json().errors.column[0]).toBe('column must be one of created_at, title.');
  });

  it('refuses page sizes the tables do not offer', async () => {
    const response = await alice.get('/api/notifications?per_page=1000');
    expect(response.statusCode).toBe(422);
    expect(response.json().errors.per_page).toBeDefined();
  });

  it('searches case-insensitively, treating % and _ as plain characters', async () => {
    const spike = (await alice.get('/api/notifications?search=BOUNCE&per_page=100')).json();
    expect(spike.meta.total).toBe(5);
    const percent = (await alice.get(`/api/notifications?search=${encodeURIComponent('100%')}`)).json();
    expect(percent.meta.total).toBe(5);
    const underscore = (await alice.get('/api/notifications?search=_')).json();
    expect(underscore.meta.total).toBe(0);
  });

  it('answers an empty page past the end with null bounds', async () => {
    const body = (await alice.get('/api/notifications?page=9')).json();
    expect(body.data).toEqual([]);
    expect(body.meta).toMatchObject({ current_page: 9, last_page: 3, from: null, to: null, total: 45 });
    expect(body.unread).toBe(45);
  });

  it('shows each user only their own rows (R12)', async () => {
    const body = (await bob.get('/api/notifications')).json();
    expect(body.meta.total).toBe(1);
    expect(body.data[0].id).toBe(bobId);
    const search = (await bob.get('/api/notifications?search=Report')).json();
    expect(search.meta.total).toBe(0);
  });
});

describe('marking notifications read', () => {
  it('ignores ids of another user', async () => {
    const response = await bob.post('/api/notifications/read', { ids: aliceIds.slice(0, 10) });
    expect(response.json()).toEqual({ status: true, message: 'Marked as read.', unread: 1 });
    expect((await alice.get('/api/notifications')).json().unread).toBe(45);
  });

  it('marks the given ids, then all', async () => {
    expect((await alice.post('/api/notifications/read', { ids: aliceIds.slice(0, 3) })).json().unread).toBe(42);
    const unreadOnly = (await alice.get('/api/notifications?unread=1&per_page=100')).json();
    expect(unreadOnly.meta.total).toBe(42);
    const everything = (await alice.get('/api/notifications?per_page=10')).json();
    expect([everything.meta.total, everything.unread]).toEqual([45, 42]);
    expect((await alice.post('/api/notifications/read', {})).json().unread).toBe(0);
  });
});

describe('maintained counters', () => {
  it('equal a fresh count after random inserts, reads, unreads and deletes', async () => {
    const users = [await seedUser(t.platform), await seedUser(t.platform)];
    const db = t.platform.db;
    let seed = 7;
    const random = (below: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % below;
    };
    for (let step = 0; step < 40; step++) {
      const user = users[random(2)]!;
      switch (random(4)) {
        case 0:
          await db
            .insertInto('notifications')
            .values(Array.from({ length: 1 + random(5) }, (_, i) => ({ user_id: user.id, title: `n${step}.${i}` })))
            .execute();
          break;
        case 1:
          await db
            .updateTable('notifications')
            .set({ read_at: new Date() })
            .where('user_id', '=', user.id)
            .where('id', '>', 0)
            .where((eb) => eb(eb.fn('mod', ['id', eb.val(3)]), '=', random(3)))
            .execute();
          break;
        case 2:
          await db.updateTable('notifications').set({ read_at: null }).where('user_id', '=', user.id).execute();
          break;
        default:
          await db
            .deleteFrom('notifications')
            .where('user_id', '=', user.id)
            .where((eb) => eb(eb.fn('mod', ['id', eb.val(4)]), '=', random(4)))
            .execute();
      }
    }
    for (const user of users) {
      const actual = await db
        .selectFrom('notifications')
        .select((eb) => [
          eb.fn.countAll<string>().as('total'),
          eb.fn.countAll<string>().filterWhere('read_at', 'is', null).as('unread'),
        ])
        .where('user_id', '=', user.id)
        .executeTakeFirstOrThrow();
      const counters = await db
        .selectFrom('notification_counters')
        .select(['total', 'unread'])
        .where('user_id', '=', user.id)
        .executeTakeFirst();
      expect(counters ?? { total: 0, unread: 0 }).toEqual({
        total: Number(actual.total),
        unread: Number(actual.unread),
      });
    }
  });
});
