import type { TCampaignSource } from '@sendwell/contracts';
import { sql } from 'kysely';
import type { Executor } from '../../platform/db';
import { HttpError } from '../../platform/errors';
import { countRows } from '../../platform/queries';
import { requireList, subscribedMembersOf } from '../lists/lists.service';
import { notSuppressed } from '../suppression/suppression.service';

/**
 * Where a draft's recipients come from (issue 47, spec §2 recipients step): uploaded files,
 * the manual table and mailing lists, each a `campaign_sources` row. A file's rows are kept
 * (`campaign_source_rows`, addresses already read by the list import's rules); a list is read
 * whenever the recipients are made. While the campaign is a draft its recipients are made
 * again from all its sources after every change, in one statement, so adding, removing and
 * counting can never disagree: one recipient per address (any case), with the name and
 * fields of the last row that gave it, attributed to the source that gave it first.
 */

type TDraft = { id: number; user_id: number };

/** A draft's sources in the order they were added, with their place (the spec's `index`). */
export const sourcesOf = async (db: Executor, campaignId: number): Promise<TCampaignSource[]> =>
  (
    await db.selectFrom('campaign_sources').selectAll().where('campaign_id', '=', campaignId).orderBy('id').execute()
  ).map((row, index) => ({
    index,
    id: row.id,
    kind: row.kind,
    name: row.name,
    list_id: row.list_id,
    rows: row.rows,
    added: row.added,
    duplicates: row.duplicates,
    skipped: row.skipped,
    unverified: row.unverified,
    created_at: row.created_at.toISOString(),
  }));

/** A new source of a file's or the manual table's rows (read already), with what was left out. */
export const insertRowsSource = async (
  trx: Executor,
  draft: TDraft,
  source: { kind: 'file' | 'manual'; name: string; rows: number; skipped: number },
  rows: { email: string; name: string; variables: Record<string, string> }[],
) => {
  const { id } = await trx
    .insertInto('campaign_sources')
    .values({ ...source, campaign_id: draft.id, user_id: draft.user_id })
    .returning('id')
    .executeTakeFirstOrThrow();
  for (let start = 0; start < rows.length; start += 5_000) {
    const chunk = rows.slice(start, start + 5_000).map((row, offset) => ({ ...row, position: start + offset + 1 }));
    await sql`
      insert into campaign_source_rows (source_id, position, user_id, email, name, variables)
      select ${id}, r.position, ${draft.user_id}, r.email, r.name, r.variables
        from jsonb_to_recordset(${JSON.stringify(chunk)}::jsonb) as r(position int, email text, name text, variables jsonb)`.execute(
      trx,
    );
  }
  return id;
};

/** A new source of a mailing list's members. */
export const insertListSource = async (trx: Executor, draft: TDraft, list: { id: number; name: string }) =>
  (
    await trx
      .insertInto('campaign_sources')
      .values({ campaign_id: draft.id, user_id: draft.user_id, kind: 'list', name: list.name, list_id: list.id })
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id;

/** The rows a draft's files and manual table hold now (a list's members are read, not kept). */
export const countSourceRows = async (db: Executor, campaignId: number) =>
  Number(
    await countRows(
      db
        .selectFrom('campaign_source_rows')
        .innerJoin('campaign_sources', 'campaign_sources.id', 'campaign_source_rows.source_id')
        .where('campaign_sources.campaign_id', '=', campaignId),
    ),
  );

export const deleteSources = async (trx: Executor, campaignId: number, ids?: number[]) => {
  let query = trx.deleteFrom('campaign_sources').where('campaign_id', '=', campaignId);
  if (ids) query = query.where('id', 'in', ids.length > 0 ? ids : [0]);
  return Number((await query.executeTakeFirst()).numDeletedRows);
};

/**
 * Makes a draft's recipients again from its sources, and each source's figures: addresses it
 * gave first, addresses an earlier row gave (duplicates, in it or in an earlier source), and
 * for a list its members left out (unsubscribed, suppressed: as Send Email leaves them out)
 * and those not verified. A file's suppressed addresses are kept; they start stopped.
 */
export const remakeRecipients = async (trx: Executor, draft: TDraft) => {
  const sources = await trx
    .selectFrom('campaign_sources')
    .select(['id', 'kind', 'list_id'])
    .where('campaign_id', '=', draft.id)
    .execute();
  const listIds = sources.flatMap((source) => (source.list_id === null ? [] : [source.list_id]));
  await trx.deleteFrom('campaign_recipients').where('campaign_id', '=', draft.id).execute();
  const figures = await sql<{
    source_id: number;
    given: number;
    added: number;
    duplicates: number;
    unverified: number;
  }>`
    with given as (
      select s.id as source_id, r.position, r.email, r.name, r.variables, true as verified
        from campaign_sources s join campaign_source_rows r on r.source_id = s.id
       where s.campaign_id = ${draft.id}
      union all
      select s.id, 0, m.email, m.fullname, m.fields, m.verified
        from campaign_sources s join ${subscribedMembersOf(draft.user_id, listIds)} m on m.list_id = s.list_id
       where s.campaign_id = ${draft.id} and ${notSuppressed(draft.user_id, sql`m.email`)}
    ),
    ranked as (
      select g.*,
             first_value(source_id) over (partition by lower(email) order by source_id, position) as first_source,
             row_number() over (partition by lower(email) order by source_id, position) as nth,
             row_number() over (partition by lower(email) order by source_id desc, position desc) as from_last
        from given g
    ),
    -- An address's name is the last one given that is not empty: a list member without a name
    -- does not blank the name a file gave (as an import keeps a member's name over an empty cell).
    named as (
      select distinct on (lower(email)) lower(email) as address, name
        from given
       where name <> ''
       order by lower(email), source_id desc, position desc
    ),
    -- Its merge fields are every source's, a later source's value over an earlier one's (as an
    -- import merges a row's fields over a member's).
    merged as (
      select lower(g.email) as address, jsonb_object_agg(f.key, f.value order by g.source_id, g.position) as variables
        from given g cross join lateral jsonb_each(coalesce(g.variables, '{}'::jsonb)) f
       group by lower(g.email)
    ),
    inserted as (
      insert into campaign_recipients (campaign_id, user_id, email, name, variables, source_id)
      select ${draft.id}, ${draft.user_id}, r.email, coalesce(n.name, r.name),
             coalesce(m.variables, '{}'::jsonb), r.first_source
        from ranked r
        left join named n on n.address = lower(r.email)
        left join merged m on m.address = lower(r.email)
       where r.from_last = 1
      returning 1
    )
    select source_id, count(*)::int as given,
           count(*) filter (where nth = 1)::int as added,
           count(*) filter (where nth > 1)::int as duplicates,
           count(*) filter (where not verified)::int as unverified
      from ranked
     group by source_id`.execute(trx);
  const bySource = new Map(figures.rows.map((row) => [Number(row.source_id), row]));
  for (const source of sources) {
    const found = bySource.get(source.id);
    const counted = {
      added: found?.added ?? 0,
      duplicates: found?.duplicates ?? 0,
      unverified: found?.unverified ?? 0,
    };
    if (source.kind === 'list') {
      // Every member on the list is a row of it; those not given were unsubscribed or suppressed.
      const members = await listMembersCount(trx, draft.user_id, source.list_id!);
      Object.assign(counted, { rows: members, skipped: Math.max(0, members - (found?.given ?? 0)) });
    }
    await trx.updateTable('campaign_sources').set(counted).where('id', '=', source.id).execute();
  }
  // The merge fields the sequence may use: those the recipients have now.
  await sql`
    update campaigns set variables = (
      select coalesce(jsonb_agg(distinct k order by k), '[]'::jsonb)
        from campaign_recipients r cross join lateral jsonb_object_keys(r.variables) k
       where r.campaign_id = ${draft.id})
     where id = ${draft.id}`.execute(trx);
};

/** Members on a list, whatever their state; 0 for a list deleted since it was added. */
const listMembersCount = async (db: Executor, userId: number, listId: number) => {
  try {
    return Number((await requireList(db, userId, listId)).members_count);
  } catch (error) {
    if (error instanceof HttpError && error.statusCode === 404) return 0;
    throw error;
  }
};

/** A draft's lists read again (at Finish: their members as they are when it starts). */
export const refreshListSources = async (trx: Executor, draft: TDraft) => {
  const lists = await trx
    .selectFrom('campaign_sources')
    .select('id')
    .where('campaign_id', '=', draft.id)
    .where('kind', '=', 'list')
    .executeTakeFirst();
  if (lists) await remakeRecipients(trx, draft);
};

/** Unsaved campaigns that take their recipients from a list, for the list's delete modal. */
export const draftsUsingList = (db: Executor, userId: number, listId: number) =>
  db
    .selectFrom('campaign_sources')
    .innerJoin('campaigns', 'campaigns.id', 'campaign_sources.campaign_id')
    .select(['campaigns.id', 'campaigns.title'])
    .distinct()
    .where('campaign_sources.user_id', '=', userId)
    .where('campaign_sources.list_id', '=', listId)
    .where('campaigns.is_draft', '=', true)
    .execute();

/** A saved campaign's recipients are the truth: the rows its files gave are no longer kept. */
export const dropSourceRows = (trx: Executor, campaignId: number) =>
  sql`delete from campaign_source_rows r using campaign_sources s
       where s.id = r.source_id and s.campaign_id = ${campaignId}`.execute(trx);
