import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, seedUser, startTestApp, type TTestApp } from '../../../test/app';

let t: TTestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

const MEMBERS = [
  ['ann_lee@example.com', 'Ann Lee'],
  ['annxlee@example.com', 'Annx'],
  ['promo@example.org', 'Save 50% Now'],
  ['bob@example.org', 'Save 50x Now'],
  ['CAROL.KING@example.com', 'Carol'],
] as const;

describe('member search (contains, trigram-indexed)', () => {
  it('finds contains-matches in email and name, case-insensitively, with % and _ taken literally', async () => {
    const user = await seedUser(t.platform, { planId: 3 });
    const agent = createAgent(t.app);
    await agent.signIn(user.email, user.password);
    const account = await t.platform.db
      .insertInto('sending_accounts')
      .values({ user_id: user.id, name: 'SMTP', provider: 'smtp', driver: 'smtp', username: 'news@acme.test' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const created = await agent.post('/api/mailing-lists', { accountId: account.id, alias: 'search', name: 'Search' });
    expect(created.statusCode, created.body).toBe(200);
    const listId = created.json().data.id as number;
    for (const [email, fullname] of MEMBERS) {
      const added = await agent.post('/api/mailing-lists/add-member', { listId, email, fullname });
      expect(added.statusCode, added.body).toBe(200);
    }

    const search = async (term: string) => {
      const page = (await agent.get(`/api/mailing-lists/${listId}/members`, { query: { search: term } })).json();
      expect(page.meta.total).toBe(page.data.length);
      return page.data.map((member: { email: string }) => member.email);
    };
    // In the middle of the email, any case; in the name only; in either.
    expect(await search('ROL.KI')).toEqual(['CAROL.KING@example.com']);
    expect(await search('example.ORG')).toEqual(['bob@example.org', 'promo@example.org']);
    expect(await search('now')).toEqual(['bob@example.org', 'promo@example.org']);
    expect(await search('lee')).toEqual(['ann_lee@example.com', 'annxlee@example.com']);
    // _ and % are characters, not wildcards.
    expect(await search('ann_')).toEqual(['ann_lee@example.com']);
    expect(await search('50%')).toEqual(['promo@example.org']);
    expect(await search('%')).toEqual(['promo@example.org']);
    expect(await search('n_l')).toEqual(['ann_lee@example.com']);
    expect(await search('nobody')).toEqual([]);
    // The index's expression joins email and name with a space; a match across it is none.
    expect(await search('.com Annx')).toEqual([]);

    // Where pg_trgm could be created, the index exists and, forced onto it, the search
    // answers the same members as the route did.
    const indexes = await sql<{ indexname: string }>`
      select indexname from pg_indexes where tablename = 'list_members' and indexname like '%trgm%'
      order by indexname`.execute(t.platform.db);
    const hasTrigram = await sql`select 1 from pg_extension where extname = 'pg_trgm'`.execute(t.platform.db);
    if (hasTrigram.rows.length === 0) return;
    expect(indexes.rows.map((row) => row.indexname)).toEqual(['list_members_search_trgm_idx']);
    await t.platform.db.transaction().execute(async (trx) => {
      await sql`set local enable_seqscan = off`.execute(trx);
      await sql`set local enable_indexscan = off`.execute(trx);
      const pattern = '%ann\\_%';
      const plan = await sql<{ 'QUERY PLAN': string }>`
        explain select id from list_members
         where (email ilike ${pattern} or fullname ilike ${pattern})
           and (email || ' ' || fullname) ilike ${pattern}`.execute(trx);
      const planText = plan.rows.map((row) => row['QUERY PLAN']).join('\n');
      expect(planText).toContain('list_members_search_trgm_idx');
      const rows = await sql<{ email: string; list_id: string }>`
        select email, list_id from list_members
         where (email ilike ${pattern} or fullname ilike ${pattern})
           and (email || ' ' || fullname) ilike ${pattern}`.execute(trx);
      expect(rows.rows.filter((row) => Number(row.list_id) === listId).map((row) => row.email)).toEqual([
        'ann_lee@example.com',
      ]);
    });
  });
});
