import { sql } from 'kysely';
import type { Executor } from '../../platform/db';

/** The test inbox's SQL (`test_inbox_messages`). */

/**
 * Keeps the advisory locks of inbox quotas apart from others (two-key form, the user id
 * second; ids 2^31 apart share a lock, which only makes them wait for each other).
 */
const QUOTA_LOCK_CLASS = 0x7e57_1b0;

export const insertMessage = (
  trx: Executor,
  message: {
    user_id: number;
    mail_from: string;
    rcpt_to: string[];
    subject: string;
    text_body: string | null;
    html_body: string | null;
    size_bytes: number;
    raw: Buffer;
  },
) => trx.insertInto('test_inbox_messages').values(message).returning(['id', 'subject']).executeTakeFirstOrThrow();

/**
 * Deletes the oldest messages beyond the newest `messages`, or beyond the newest that fit in
 * `bytes` together, after a per-user lock: two messages arriving together are counted one
 * after the other.
 */
export const pruneToQuota = async (trx: Executor, userId: number, quota: { messages: number; bytes: number }) => {
  await sql`select pg_advisory_xact_lock(${QUOTA_LOCK_CLASS}::int, (${userId}::bigint % 2147483648)::int)`.execute(trx);
  await sql`
    delete from test_inbox_messages where id in (
      select id from (
        select id, row_number() over newest as position, sum(size_bytes) over newest as bytes
          from test_inbox_messages
         where user_id = ${userId}
        window newest as (order by created_at desc, id desc)
      ) as ranked
       where position > ${quota.messages} or bytes > ${quota.bytes})`.execute(trx);
};

/** The inbox page's table: a user's messages without their bodies. */
export const selectMessages = (db: Executor, userId: number) =>
  db
    .selectFrom('test_inbox_messages')
    .select(['id', 'mail_from', 'rcpt_to', 'subject', 'size_bytes', 'created_at'])
    .where('user_id', '=', userId);

export const findMessage = (db: Executor, userId: number, id: number) =>
  db
    .selectFrom('test_inbox_messages')
    .selectAll()
    .where('user_id', '=', userId)
    .where('id', '=', id)
    .executeTakeFirst();

export const setAnalysis = (db: Executor, id: number, analysis: unknown) =>
  db
    .updateTable('test_inbox_messages')
    .set({ analysis: JSON.stringify(analysis) })
    .where('id', '=', id)
    .execute();

export const deleteMessages = (db: Executor, userId: number) =>
  db.deleteFrom('test_inbox_messages').where('user_id', '=', userId).execute();
