import { sql } from 'kysely';
import type { Executor } from '../../platform/db';

/**
 * Contains-search over a list's members (email or name) from a trigram index that is kept
 * outside the import's transaction (migration 20261124T000100_member_search.sql says why):
 * `indexMemberSearch` copies committed members' terms into `list_member_search` after the
 * fact, and `memberSearchWithin` narrows a search to the indexed matches plus the members
 * not indexed yet, so nobody is missed while the index catches up.
 */

/** Members indexed per statement: each slice commits on its own, so no statement runs long. */
const INDEX_SLICE = 20_000;

/**
 * Indexes the list's members above its watermark, slice by slice, moving the watermark
 * with each. Members are read `for share`, so a concurrent rename commits first and its
 * new name is the one indexed (later renames reach the index through the update trigger).
 * Answers how many members were indexed.
 */
export const indexMemberSearch = async (db: Executor, listId: number) => {
  let total = 0;
  for (;;) {
    const result = await sql<{ indexed: number }>`
      with slice as (
        select m.id, m.list_id, m.email || ' ' || m.fullname as terms
          from mailing_lists l join list_members m on m.list_id = l.id and m.id > l.search_indexed_through
         where l.id = ${listId}
         order by m.id
         limit ${INDEX_SLICE}
           for share of m
      ), written as (
        insert into list_member_search (member_id, list_id, terms)
        select id, list_id, terms from slice
        on conflict (member_id) do update set terms = excluded.terms
        returning member_id
      ), moved as (
        update mailing_lists set search_indexed_through = (select max(member_id) from written)
         where id = ${listId} and exists (select from written)
      )
      select count(*)::int as indexed from written`.execute(db);
    const indexed = result.rows[0]?.indexed ?? 0;
    total += indexed;
    if (indexed < INDEX_SLICE) break;
  }
  if (total >= SETTLE_AFTER_ROWS) await settleIndex(db);
  return total;
};

/** Members indexed in one run after which the index is settled (`settleIndex`). */
const SETTLE_AFTER_ROWS = 10_000;

/**
 * After a large run: the index's pending list (entries not merged yet, which every search
 * reads in full) is merged now rather than at autovacuum, and the planner learns the
 * table's new size. Where pg_trgm is missing there is no index to settle.
 */
const settleIndex = async (db: Executor) => {
  // Fails where the index is missing (no pg_trgm): nothing to settle.
  await sql`select gin_clean_pending_list('list_member_search_terms_idx'::regclass)`.execute(db).catch(() => {});
  // Fresh statistics only help the planner; without them autovacuum brings them later.
  await sql`analyze list_member_search`.execute(db).catch(() => {});
};

/** Lists with members not indexed yet (after an upgrade, or a job lost with its process). */
export const findListsToIndex = async (db: Executor) =>
  (
    await sql<{ id: number }>`
      select l.id from mailing_lists l
       where exists (select from list_members m where m.list_id = l.id and m.id > l.search_indexed_through)`.execute(db)
  ).rows.map((row) => row.id);

/**
 * The members a search of one list may match: those whose indexed terms match the
 * pattern, and every member above the watermark (not indexed yet). The columns' own test
 * still decides, so the matches are exactly the unindexed search's.
 */
export const memberSearchWithin = (listId: number) => (pattern: string) =>
  sql<boolean>`list_members.id in (
    select s.member_id from list_member_search s where s.list_id = ${listId} and s.terms ilike ${pattern}
    union all
    select t.id from mailing_lists l join list_members t on t.list_id = l.id and t.id > l.search_indexed_through
     where l.id = ${listId})`;
