import { type Insertable, type RawBuilder, sql, type Updateable } from 'kysely';
import type { Executor } from '../../platform/db';
import type { ListImportsTable, ListMembersTable, MailingListsTable } from '../../platform/db-schema';
import { countRows, isAddress } from '../../platform/queries';

/** A list with the account it belongs to, for the tables and the modals. */
export const listsQuery = (db: Executor, userId: number) =>
  db
    .selectFrom('mailing_lists')
    .innerJoin('sending_accounts', 'sending_accounts.id', 'mailing_lists.account_id')
    .selectAll('mailing_lists')
    .select(['sending_accounts.name as account_name', 'sending_accounts.provider as provider'])
    .where('mailing_lists.user_id', '=', userId);

/** One of the user's lists, or nothing: another user's id finds nothing. */
export const findList = (db: Executor, userId: number, listId: number) =>
  listsQuery(db, userId).where('mailing_lists.id', '=', listId).executeTakeFirst();

export type TListRow = NonNullable<Awaited<ReturnType<typeof findList>>>;

export const findListByAddress = (db: Executor, userId: number, accountId: number, address: string) =>
  listsQuery(db, userId)
    .where('mailing_lists.account_id', '=', accountId)
    .where(sql<string>`lower(mailing_lists.address)`, '=', address.toLowerCase())
    .executeTakeFirst();

/** Locks the list row for the rest of the transaction (imports and deletes of one list go one at a time). */
export const lockList = (db: Executor, userId: number, listId: number) =>
  db
    .selectFrom('mailing_lists')
    .select(['id', 'account_id', 'address'])
    .where('user_id', '=', userId)
    .where('id', '=', listId)
    .forUpdate()
    .executeTakeFirst();

export const countUserLists = (db: Executor, userId: number) =>
  countRows(db.selectFrom('mailing_lists').where('user_id', '=', userId));

export const insertList = (db: Executor, row: Insertable<MailingListsTable>) =>
  db.insertInto('mailing_lists').values(row).returning('id').executeTakeFirstOrThrow();

export const updateList = (db: Executor, userId: number, listId: number, changes: Updateable<MailingListsTable>) =>
  db
    .updateTable('mailing_lists')
    .set({ ...changes, updated_at: new Date() })
    .where('user_id', '=', userId)
    .where('id', '=', listId)
    .executeTakeFirst();

export const deleteList = (db: Executor, userId: number, listId: number) =>
  db.deleteFrom('mailing_lists').where('user_id', '=', userId).where('id', '=', listId).executeTakeFirst();

// --- members ---

/** A member's row as the member calls answer it. */
const MEMBER_COLUMNS = [
  'id',
  'email',
  'fullname',
  'subscribed',
  'verified',
  'verified_at',
  'list_id',
  'account_id',
  'fields',
  'unconfirmed',
  'created_at',
] as const;

export const membersQuery = (db: Executor, userId: number, listId: number) =>
  db.selectFrom('list_members').select(MEMBER_COLUMNS).where('user_id', '=', userId).where('list_id', '=', listId);

export const findMember = (db: Executor, userId: number, memberId: number) =>
  db
    .selectFrom('list_members')
    .select(MEMBER_COLUMNS)
    .where('user_id', '=', userId)
    .where('id', '=', memberId)
    .executeTakeFirst();

export type TMemberRow = NonNullable<Awaited<ReturnType<typeof findMember>>>;

/** Changes one member of the user's (its `updated_at` with them). */
export const updateMember = (db: Executor, userId: number, memberId: number, changes: Updateable<ListMembersTable>) =>
  db
    .updateTable('list_members')
    .set({ ...changes, updated_at: new Date() })
    .where('user_id', '=', userId)
    .where('id', '=', memberId)
    .execute();

export const findMembersByIds = (db: Executor, userId: number, listId: number, ids: number[]) =>
  db
    .selectFrom('list_members')
    .select(['id', 'email'])
    .where('user_id', '=', userId)
    .where('list_id', '=', listId)
    .where('id', 'in', ids)
    .execute();

export const deleteMembers = (db: Executor, userId: number, listId: number, ids: number[]) =>
  db
    .deleteFrom('list_members')
    .where('user_id', '=', userId)
    .where('list_id', '=', listId)
    .where('id', 'in', ids)
    .returning(['id', 'email'])
    .execute();

export type TMemberUpsert = { email: string; fullname: string; subscribed?: boolean; fields: Record<string, string> };

/** The consent record each member an upsert adds gets: where they came from. */
export type TUpsertConsent = { source: 'import' | 'provider' | 'api'; detail: string; ip: string | null };

/**
 * Adds members or merges them into those already on the list (same address, any case):
 * a given name replaces the stored one, custom fields are merged, the subscription is
 * kept unless `subscribed` is given (never for a member who has not confirmed a double
 * opt-in signup: only the person can, from the confirmation email). Each member added gets
 * `consent` as its consent record, in the same statement. Answers how many were added and
 * updated.
 */
export const upsertMembers = async (
  db: Executor,
  list: { userId: number; listId: number; accountId: number },
  members: TMemberUpsert[],
  { setSubscribed = false, consent = null }: { setSubscribed?: boolean; consent?: TUpsertConsent | null } = {},
) => {
  if (members.length === 0) return { added: 0, updated: 0 };
  const result = await sql<{ added: number; updated: number }>`
    with incoming as (
      select distinct on (lower(email)) email, fullname, subscribed, fields
        from unnest(${members.map((member) => member.email)}::text[],
                    ${members.map((member) => member.fullname)}::text[],
                    ${members.map((member) => member.subscribed ?? true)}::boolean[],
                    ${members.map((member) => JSON.stringify(member.fields))}::jsonb[])
             with ordinality as t(email, fullname, subscribed, fields, position)
       order by lower(email), position desc
    ), written as (
      insert into list_members as m (user_id, list_id, account_id, email, fullname, subscribed, fields)
      select ${list.userId}, ${list.listId}, ${list.accountId}, email, fullname, subscribed, fields from incoming
      on conflict (list_id, lower(email)) do update
         set fullname = case when excluded.fullname <> '' then excluded.fullname else m.fullname end,
             fields = m.fields || excluded.fields,
             subscribed = case when ${setSubscribed} and not m.unconfirmed then excluded.subscribed else m.subscribed end,
             updated_at = now()
      returning m.id, (xmax = 0) as inserted
    ), consented as (
      insert into member_consents (user_id, list_id, member_id, source, source_detail, ip)
      select ${list.userId}, ${list.listId}, id, ${consent?.source ?? ''}, ${consent?.detail ?? ''}, ${consent?.ip ?? null}::inet
        from written where inserted and ${consent !== null}
    )
    select count(*) filter (where inserted)::int as added, count(*) filter (where not inserted)::int as updated
      from written`.execute(db);
  return result.rows[0] ?? { added: 0, updated: 0 };
};

/** The members of a list with these addresses (any case), locked for the rest of the transaction. */
export const lockMembersByEmail = (db: Executor, listId: number, emails: string[]) =>
  db
    .selectFrom('list_members')
    .select(['id', 'email', 'subscribed'])
    .where('list_id', '=', listId)
    .where(sql<boolean>`lower(email) = any(${emails.map((email) => email.toLowerCase())}::text[])`)
    .forUpdate()
    .execute();

/**
 * Adds members or updates those already on the list (one row per address; the caller
 * dedupes): a given name replaces the stored one, fields are merged. `setSubscribed`: the
 * rows' `subscribed` is set on members already there too; otherwise they keep theirs (a new
 * address is subscribed). Answers each row written, with whether it was inserted and whether
 * it was subscribed before (null for a new one), as the statement's snapshot saw it: not
 * `for update` (a row this statement then updates would be skipped by its own lock); the
 * upsert locks the rows it writes.
 */
export const saveMemberRows = async (
  db: Executor,
  list: { userId: number; listId: number; accountId: number },
  members: { email: string; fullname: string; fields: Record<string, string>; subscribed: boolean }[],
  { setSubscribed }: { setSubscribed: boolean },
) => {
  if (members.length === 0) return [];
  const result = await sql<TMemberRow & { inserted: boolean; was_subscribed: boolean | null }>`
    with previous as (
      select id, subscribed from list_members
       where list_id = ${list.listId} and lower(email) = any(${members.map((member) => member.email.toLowerCase())}::text[])
    ), written as (
      insert into list_members as m (user_id, list_id, account_id, email, fullname, subscribed, fields)
      select ${list.userId}, ${list.listId}, ${list.accountId}, email, fullname, subscribed, fields
        from unnest(${members.map((member) => member.email)}::text[],
                    ${members.map((member) => member.fullname)}::text[],
                    ${members.map((member) => member.subscribed)}::boolean[],
                    ${members.map((member) => JSON.stringify(member.fields))}::jsonb[])
             as t(email, fullname, subscribed, fields)
      on conflict (list_id, lower(email)) do update
         set fullname = case when excluded.fullname <> '' then excluded.fullname else m.fullname end,
             fields = m.fields || excluded.fields,
             subscribed = case when ${setSubscribed} then excluded.subscribed else m.subscribed end,
             -- Subscribed by the call: a signup that waited for its confirmation is done waiting.
             unconfirmed = case when ${setSubscribed} and excluded.subscribed then false else m.unconfirmed end,
             updated_at = now()
      returning ${sql.join(MEMBER_COLUMNS.map((column) => sql.ref(`m.${column}`)))}, (xmax = 0) as inserted
    )
    select written.*, previous.subscribed as was_subscribed
      from written left join previous on previous.id = written.id`.execute(db);
  return result.rows;
};

export const deleteMemberByEmail = (db: Executor, userId: number, listId: number, email: string) =>
  db
    .deleteFrom('list_members')
    .where('user_id', '=', userId)
    .where('list_id', '=', listId)
    .where(isAddress(email))
    .returning(['id', 'email'])
    .execute();

// --- imports ---

export const insertImport = (db: Executor, row: Insertable<ListImportsTable>) =>
  db.insertInto('list_imports').values(row).returning('id').executeTakeFirstOrThrow();

export const importsQuery = (db: Executor, userId: number) =>
  db
    .selectFrom('list_imports')
    .innerJoin('mailing_lists', 'mailing_lists.id', 'list_imports.list_id')
    .select([
      'list_imports.id',
      'list_imports.list_id',
      'mailing_lists.address as list_address',
      'list_imports.file_name',
      'list_imports.status',
      'list_imports.stage',
      'list_imports.bytes_total',
      'list_imports.bytes_read',
      'list_imports.rows_read',
      'list_imports.added',
      'list_imports.updated',
      'list_imports.skipped',
      'list_imports.duplicates',
      'list_imports.skipped_reasons',
      'list_imports.error',
      'list_imports.has_report',
      'list_imports.created_at',
      'list_imports.finished_at',
    ])
    .where('list_imports.user_id', '=', userId);

export type TImportRow = Awaited<ReturnType<ReturnType<typeof importsQuery>['executeTakeFirstOrThrow']>>;

export const updateImport = (db: Executor, importId: number, changes: Updateable<ListImportsTable>) =>
  db
    .updateTable('list_imports')
    .set({ ...changes, updated_at: new Date() })
    .where('id', '=', importId)
    .executeTakeFirst();

export const insertImportChunk = (
  db: Executor,
  importId: number,
  kind: 'upload' | 'report',
  seq: number,
  data: Buffer,
) => db.insertInto('list_import_files').values({ import_id: importId, kind, seq, data }).execute();

export const findImportChunk = async (db: Executor, importId: number, kind: 'upload' | 'report', seq: number) =>
  (
    await db
      .selectFrom('list_import_files')
      .select('data')
      .where('import_id', '=', importId)
      .where('kind', '=', kind)
      .where('seq', '=', seq)
      .executeTakeFirst()
  )?.data;

export const deleteImportChunks = (db: Executor, importId: number, kind: 'upload' | 'report') =>
  db.deleteFrom('list_import_files').where('import_id', '=', importId).where('kind', '=', kind).execute();

/**
 * The subscribed members of some of a user's lists (user_id, list_id, email, fullname,
 * fields, verified), as a subquery for set-based work of other modules (a send's snapshot,
 * a drip campaign's recipients from lists), which hold no SQL of this module's tables of their own.
 */
export const subscribedMembersOf = (userId: number, listIds: number[]) =>
  sql`(select m.user_id, m.list_id, m.email, m.fullname, m.fields, m.verified
         from list_members m
        where m.user_id = ${userId} and m.list_id = any(${listIds}::bigint[]) and m.subscribed)`;

/**
 * "This address is subscribed on one of the user's lists", for other modules' set-based
 * queries (the suppression table's status). Through the user's lists, so each lookup is
 * one probe of the (list_id, lower(email)) index per list.
 */
export const onAnyListOf = (userId: number, email: RawBuilder<unknown>) =>
  sql<boolean>`exists (
    select 1 from mailing_lists l join list_members m on m.list_id = l.id and lower(m.email) = lower(${email})
     where l.user_id = ${userId} and m.subscribed)`;

/** Which of the user's lists hold these addresses (any case), and whether subscribed there. */
export const findMemberships = async (db: Executor, userId: number, emails: string[]) => {
  if (emails.length === 0) return [];
  return (
    await sql<{ email: string; list_id: number; account_id: number; address: string; subscribed: boolean }>`
      select lower(m.email) as email, l.id as list_id, l.account_id, l.address, m.subscribed
        from mailing_lists l
        join list_members m on m.list_id = l.id and lower(m.email) = any(${emails.map((email) => email.toLowerCase())}::text[])
       where l.user_id = ${userId}
       order by l.address`.execute(db)
  ).rows;
};

/** The addresses of a list's members not verified yet (each once), for a list verification. */
export const findUnverifiedEmails = async (db: Executor, userId: number, listId: number) =>
  (
    await db
      .selectFrom('list_members')
      .select('email')
      .where('user_id', '=', userId)
      .where('list_id', '=', listId)
      .where('verified', '=', false)
      .execute()
  ).map((row) => row.email);

export const setVerifyStatus = (
  db: Executor,
  userId: number,
  listId: number,
  status: 'unverified' | 'processing' | 'verified',
) =>
  db
    .updateTable('mailing_lists')
    .set({
      verify_status: status,
      ...(status === 'verified' ? { verified_at: new Date() } : {}),
      updated_at: new Date(),
    })
    .where('user_id', '=', userId)
    .where('id', '=', listId)
    .execute();

/** Marks the list's members whose address was found valid as verified (the counters follow by trigger). */
export const markMembersVerified = (db: Executor, listId: number, validEmails: string[]) =>
  sql`
    update list_members set verified = true, verified_at = now(), updated_at = now()
     where list_id = ${listId} and not verified
       and lower(email) = any(${validEmails.map((email) => email.toLowerCase())}::text[])`.execute(db);

// --- what the Send Email page and the engine read of lists ---

/** The lists of one account the Send Email form offers, in name order. */
export const findListsOfAccount = (db: Executor, userId: number, accountId: number) =>
  db
    .selectFrom('mailing_lists')
    .select(['id', 'name', 'address', 'subscribed_count as subscribed', 'unverified_subscribers_count'])
    .where('user_id', '=', userId)
    .where('account_id', '=', accountId)
    .orderBy('name')
    .orderBy('id')
    .execute();

/** The user's lists among these ids (optionally of one account), with their names. */
export const findListsByIds = (db: Executor, userId: number, ids: number[], accountId?: number) => {
  let rows = db
    .selectFrom('mailing_lists')
    .select(['id', 'name'])
    .where('user_id', '=', userId)
    .where('id', 'in', ids.length > 0 ? ids : [0]);
  if (accountId !== undefined) rows = rows.where('account_id', '=', accountId);
  return rows.execute();
};

/**
 * The audience of some lists counted once per address: how many addresses are on more than
 * one of them, how many in all, and how many of those are not verified. One grouped pass.
 */
/**
 * What the pre-send check reads of an audience in one grouped pass: its addresses once, the
 * never verified among them (neither by a list's verification nor by `verdictOf`, the
 * user's own results, which the verification module offers), the known-bad ones (not an
 * address by its shape, or found invalid), and those whose local part is a generic (role)
 * name (`info@`, `sales@`: a team's shared inbox, which did not ask for the mail and
 * complains more).
 */
export const audienceFacts = async (
  db: Executor,
  userId: number,
  listIds: number[],
  genericNames: string[],
  verdictOf: (address: RawBuilder<unknown>) => RawBuilder<string | null> = () => sql`null::text`,
) =>
  (
    await sql<{ recipients: number; unverified: number; invalid: number; generic: number }>`
      select count(*)::int as recipients,
             count(*) filter (where not verified and verdict is distinct from 'valid')::int as unverified,
             count(*) filter (where address !~ '^[^@[:space:]]+@[^@[:space:]]+[.][^@[:space:]]+$' or verdict = 'invalid')::int
               as invalid,
             count(*) filter (where split_part(address, '@', 1) = any(${genericNames}::text[]))::int as generic
        from (select m.address, m.verified, ${verdictOf(sql`m.address`)} as verdict
                from (select lower(email) as address, bool_or(verified) as verified
                        from list_members
                       where user_id = ${userId} and list_id = any(${listIds}::bigint[]) and subscribed
                       group by lower(email)) m) d`.execute(db)
  ).rows[0]!;

export const countAudience = async (
  db: Executor,
  userId: number,
  listIds: number[],
  verdictOf: (address: RawBuilder<unknown>) => RawBuilder<string | null> = () => sql`null::text`,
) =>
  (
    await sql<{ duplicates: number; recipients: number; unverified: number }>`
      select count(*) filter (where lists > 1)::int as duplicates,
             count(*)::int as recipients,
             -- Never verified as the pre-send check counts it (audienceFacts): no list's verification
             -- and no valid result of the user's own.
             count(*) filter (where not verified and ${verdictOf(sql`address`)} is distinct from 'valid')::int as unverified
        from (select lower(email) as address, count(*) as lists, bool_or(verified) as verified
                from list_members
               where user_id = ${userId} and list_id = any(${listIds}::bigint[]) and subscribed
               group by lower(email)) d`.execute(db)
  ).rows[0]!;
