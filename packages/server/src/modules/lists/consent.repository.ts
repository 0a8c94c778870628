import type { TConsentSource } from '@sendwell/contracts';
import { sql } from 'kysely';
import type { Executor } from '../../platform/db';
import { isAddress } from '../../platform/queries';

/**
 * The SQL of signups, confirmations and consent records (`member_consents`), and of the
 * member state they change. `subscriptions.service.ts` is what decides.
 */

export type TConsentInput = {
  source: TConsentSource;
  detail: string;
  ip: string | null;
  userAgent: string | null;
  text: string;
};

/** A list's member by address (any case), locked for the rest of the transaction. */
export const lockMemberByEmail = (db: Executor, listId: number, email: string) =>
  db
    .selectFrom('list_members')
    .select(['id', 'subscribed', 'unconfirmed'])
    .where('list_id', '=', listId)
    .where(isAddress(email))
    .forUpdate()
    .executeTakeFirst();

/** A new member from a signup; nothing when the address arrived meanwhile (the caller locks it then). */
export const insertSignedUpMember = (
  db: Executor,
  list: { id: number; user_id: number; account_id: number },
  member: { email: string; fullname: string; fields: Record<string, string>; isConfirmed: boolean },
) =>
  db
    .insertInto('list_members')
    .values({
      user_id: list.user_id,
      list_id: list.id,
      account_id: list.account_id,
      email: member.email,
      fullname: member.fullname,
      fields: JSON.stringify(member.fields),
      subscribed: member.isConfirmed,
      unconfirmed: !member.isConfirmed,
    })
    .onConflict((conflict) => conflict.expression(sql`list_id, lower(email)`).doNothing())
    .returning('id')
    .executeTakeFirst();

/**
 * A signup of an address already on the list fills what the member lacks (a name, a
 * field) and never overwrites what is there: whoever typed the address has not shown it is
 * theirs. The state moves as the service says.
 */
export const updateSignedUpMember = (
  db: Executor,
  memberId: number,
  member: { fullname: string; fields: Record<string, string> },
  state: { subscribed: boolean; unconfirmed: boolean } | null,
) =>
  db
    .updateTable('list_members')
    .set({
      fullname: sql`case when fullname = '' then ${member.fullname} else fullname end`,
      fields: sql`${JSON.stringify(member.fields)}::jsonb || fields`,
      ...(state ?? {}),
      updated_at: new Date(),
    })
    .where('id', '=', memberId)
    .execute();

export const insertConsent = (
  db: Executor,
  row: {
    userId: number;
    listId: number;
    memberId: number;
    consent: TConsentInput;
    confirmation?: { tokenHash: Buffer; expiresAt: Date; sentAt: Date } | null;
  },
) =>
  db
    .insertInto('member_consents')
    .values({
      user_id: row.userId,
      list_id: row.listId,
      member_id: row.memberId,
      source: row.consent.source,
      source_detail: row.consent.detail.slice(0, 200),
      ip: row.consent.ip,
      user_agent: row.consent.userAgent?.slice(0, 500) ?? null,
      consent_text: row.consent.text,
      ...(row.confirmation
        ? {
            confirm_token_hash: row.confirmation.tokenHash,
            confirm_expires_at: row.confirmation.expiresAt,
            confirmation_sent_at: row.confirmation.sentAt,
            confirmations_sent: 1,
          }
        : {}),
    })
    .returning('id')
    .executeTakeFirstOrThrow();

/** The member's latest signup still waiting for its confirmation, locked. */
export const lockPendingConsent = (db: Executor, memberId: number) =>
  db
    .selectFrom('member_consents')
    .select(['id', 'confirmation_sent_at'])
    .where('member_id', '=', memberId)
    .where('confirmed_at', 'is', null)
    .where('confirm_token_hash', 'is not', null)
    .orderBy('id', 'desc')
    .limit(1)
    .forUpdate()
    .executeTakeFirst();

/** A second signup of a member still unconfirmed: a new link (the old one stops working) and the latest words agreed to. */
export const renewConfirmation = (
  db: Executor,
  consentId: number,
  consent: TConsentInput,
  confirmation: { tokenHash: Buffer; expiresAt: Date; sentAt: Date },
) =>
  db
    .updateTable('member_consents')
    .set({
      source: consent.source,
      source_detail: consent.detail.slice(0, 200),
      ip: consent.ip,
      user_agent: consent.userAgent?.slice(0, 500) ?? null,
      consent_text: consent.text,
      confirm_token_hash: confirmation.tokenHash,
      confirm_expires_at: confirmation.expiresAt,
      confirmation_sent_at: confirmation.sentAt,
      confirmations_sent: sql`confirmations_sent + 1`,
      updated_at: new Date(),
    })
    .where('id', '=', consentId)
    .execute();

export const setConfirmationSend = (db: Executor, consentId: number, sendId: number) =>
  db
    .updateTable('member_consents')
    .set({ confirmation_send_id: sendId, updated_at: new Date() })
    .where('id', '=', consentId)
    .execute();

/** The signup a confirmation token belongs to, with its member and list; locked (signup and member) when `lock`. */
export const findConsentByToken = (db: Executor, tokenHash: Buffer, { lock }: { lock: boolean }) => {
  const query = db
    .selectFrom('member_consents as c')
    .innerJoin('list_members as m', 'm.id', 'c.member_id')
    .innerJoin('mailing_lists as l', 'l.id', 'c.list_id')
    .select([
      'c.id',
      'c.confirmed_at',
      'c.confirm_expires_at',
      'm.id as member_id',
      'm.email',
      'm.fullname',
      'm.subscribed',
      'm.unconfirmed',
      'l.id as list_id',
      'l.user_id',
      'l.name as list_name',
      'l.form_key',
    ])
    .where('c.confirm_token_hash', '=', tokenHash);
  return (lock ? query.forUpdate(['c', 'm']) : query).executeTakeFirst();
};

export const markConfirmed = async (db: Executor, consentId: number, memberId: number, ip: string | null) => {
  await db
    .updateTable('member_consents')
    .set({ confirmed_at: new Date(), confirmed_ip: ip, updated_at: new Date() })
    .where('id', '=', consentId)
    .execute();
  await db
    .updateTable('list_members')
    .set({ subscribed: true, unconfirmed: false, updated_at: new Date() })
    .where('id', '=', memberId)
    .execute();
};

/** Who leaves: members by id, or addresses (any case) on the user's lists, or on one account's lists. */
export type TLeaving = { memberIds: number[] } | { emails: string[]; accountId?: number };

/**
 * Members leave their lists: neither subscribed nor waiting for a confirmation (a waiting
 * signup is cancelled, its link opens nothing). Through the user's lists, one probe of the
 * (list_id, lower(email)) index each for addresses. Answers the members that changed.
 */
export const leaveLists = async (db: Executor, userId: number, leaving: TLeaving) => {
  const which =
    'memberIds' in leaving
      ? sql`m.id = any(${leaving.memberIds}::bigint[])`
      : sql`lower(m.email) = any(${leaving.emails.map((email) => email.toLowerCase())}::text[])
            ${leaving.accountId === undefined ? sql`` : sql`and l.account_id = ${leaving.accountId}`}`;
  // `was_subscribed`: on the list before (a waiting signup cancelled was not), for its webhook.
  return (
    await sql<{ id: number; list_id: number; email: string; fullname: string; was_subscribed: boolean }>`
      with leaving as (
        select m.id, m.subscribed from list_members m join mailing_lists l on l.id = m.list_id
         where l.user_id = ${userId} and (m.subscribed or m.unconfirmed) and ${which}
      )
      update list_members m set subscribed = false, unconfirmed = false, updated_at = now()
        from leaving
       where m.id = leaving.id
      returning m.id, m.list_id, m.email, m.fullname, leaving.subscribed as was_subscribed`.execute(db)
  ).rows.map((row) => ({ ...row, id: Number(row.id), list_id: Number(row.list_id) }));
};

/** A member's consent records, newest first, the import that added it (if one did) last. */
export const findConsentsOfMember = async (db: Executor, userId: number, memberId: number) =>
  (
    await sql<{
      source: TConsentSource;
      detail: string;
      agreed_at: Date;
      ip: string | null;
      user_agent: string | null;
      consent_text: string;
      confirmation_sent_at: Date | null;
      confirmed_at: Date | null;
      confirmed_ip: string | null;
    }>`
      select * from (
        select c.source, c.source_detail as detail, c.created_at as agreed_at, host(c.ip) as ip, c.user_agent,
               c.consent_text, c.confirmation_sent_at, c.confirmed_at, host(c.confirmed_ip) as confirmed_ip, c.id
          from member_consents c
         where c.member_id = ${memberId} and c.user_id = ${userId}
        union all
        select 'import', i.file_name, i.created_at, host(i.ip), null, '', null, null, null, 0
          from list_members m join list_imports i on i.id = m.import_id
         where m.id = ${memberId} and m.user_id = ${userId}) r
       order by r.id desc`.execute(db)
  ).rows;

/**
 * The members of a list after `afterId` with their latest consent record (or their import),
 * for the list's export: one keyset slice.
 */
export const findMembersWithConsent = async (
  db: Executor,
  userId: number,
  listId: number,
  afterId: number,
  limit: number,
) =>
  (
    await sql<{
      id: number;
      email: string;
      fullname: string;
      subscribed: boolean;
      unconfirmed: boolean;
      verified: boolean;
      fields: Record<string, string>;
      created_at: Date;
      source: string | null;
      detail: string | null;
      agreed_at: Date | null;
      ip: string | null;
      consent_text: string | null;
      confirmed_at: Date | null;
      confirmed_ip: string | null;
    }>`
      select m.id, m.email, m.fullname, m.subscribed, m.unconfirmed, m.verified, m.fields, m.created_at,
             coalesce(c.source, case when i.id is not null then 'import' end) as source,
             coalesce(c.source_detail, i.file_name) as detail,
             coalesce(c.created_at, i.created_at) as agreed_at,
             host(coalesce(c.ip, i.ip)) as ip, c.consent_text, c.confirmed_at, host(c.confirmed_ip) as confirmed_ip
        from list_members m
        left join lateral (select * from member_consents c where c.member_id = m.id order by c.id desc limit 1) c on true
        left join list_imports i on i.id = m.import_id
       where m.user_id = ${userId} and m.list_id = ${listId} and m.id > ${afterId}
       order by m.id
       limit ${limit}`.execute(db)
  ).rows.map((row) => ({ ...row, id: Number(row.id) }));

/** The lists of one sending account an address is on (any case), for the preferences page. */
export const findMembershipsOnAccount = (db: Executor, userId: number, accountId: number, email: string) =>
  db
    .selectFrom('list_members as m')
    .innerJoin('mailing_lists as l', 'l.id', 'm.list_id')
    .select([
      'm.id as member_id',
      'm.fullname',
      'm.subscribed',
      'm.unconfirmed',
      'l.id as list_id',
      'l.name as list_name',
      'l.description as list_description',
    ])
    .where('l.user_id', '=', userId)
    .where('l.account_id', '=', accountId)
    .where(sql<string>`lower(m.email)`, '=', email.toLowerCase())
    .orderBy('l.name')
    .orderBy('l.id')
    .execute();

export const renameMembers = (db: Executor, userId: number, memberIds: number[], fullname: string) =>
  db
    .updateTable('list_members')
    .set({ fullname, updated_at: new Date() })
    .where('user_id', '=', userId)
    .where('id', 'in', memberIds.length > 0 ? memberIds : [0])
    .execute();

/**
 * Deletes members whose double opt-in signup was never confirmed and whose last link expired
 * before `before` (their consent records go with them), at most `limit` a call. Through the
 * partial index of unconfirmed members: only those waiting are read.
 */
export const deleteExpiredSignups = async (db: Executor, before: Date, limit: number) =>
  Number(
    (
      await sql`
        delete from list_members where id in (
          select m.id from list_members m
           where m.unconfirmed
             and not exists (select 1 from member_consents c
                              where c.member_id = m.id
                                and (c.confirm_expires_at is null or c.confirm_expires_at > ${before}))
           limit ${limit})`.execute(db)
    ).numAffectedRows ?? 0n,
  );
