import { type Insertable, sql } from 'kysely';
import type { Executor } from '../../platform/db';
import type { SendsTable, TSendStatus } from '../../platform/db-schema';
import { refreshCounts } from './outcomes';
/**
 * A send's lifecycle (README.md beside this file has the states): snapshot begun and ended,
 * waiting, held, finished, failed, scheduled and changed, a split send's parts, the
 * breaker's pause. Each change names the states it may leave, so running it twice is harmless.
 */

/**
 * After the lead's snapshot, its sibling parts: each counted; the test parts go out (they are
 * answered, to be dispatched), the rest stays `held` for the decision. Answers the test parts
 * that went.
 */
export const startSplitParts = async (trx: Executor, leadId: number) =>
  (
    await sql<{ id: number; split_part: number }>`
      update sends s set recipients_count = (select count(*) from send_recipients where send_id = s.id),
             status = case when s.split_part = 0 then 'held' else 'sending' end,
             started_at = case when s.split_part = 0 then null else coalesce(s.started_at, now()) end,
             updated_at = now()
       where s.split_group = ${leadId} and s.id <> ${leadId} and s.status = 'held'
      returning s.id, s.split_part`.execute(trx)
  ).rows
    .filter((row) => row.split_part !== 0)
    .map((row) => Number(row.id));

/** The parts of a split send, the lead first, with what each counts: only the user's own. */
export const findSplitParts = (db: Executor, userId: number, leadId: number) =>
  db
    .selectFrom('sends')
    .selectAll()
    .where('user_id', '=', userId)
    .where('split_group', '=', leadId)
    .orderBy(sql`split_part = 0`)
    .orderBy('split_part')
    .execute();

/**
 * A held part (an A/B test's rest) goes out with this subject; answers whether this call let
 * it go (only once: from `held`). Its dispatch is the caller's to queue, in the same transaction.
 */
export const releaseHeldSend = async (trx: Executor, sendId: number, subject: string) =>
  Number(
    (
      await sql`update sends set status = 'sending', subject = ${subject}, started_at = coalesce(started_at, now()),
                      updated_at = now()
                 where id = ${sendId} and status = 'held'`.execute(trx)
    ).numAffectedRows ?? 0,
  ) > 0;

/** The held parts of a split send cancelled with it (its lead was cancelled before its snapshot). */
export const cancelHeldParts = (trx: Executor, leadId: number) =>
  sql`update sends set status = 'cancelled', finished_at = now(), updated_at = now()
       where split_group = ${leadId} and status = 'held'`.execute(trx);

/** Takes a queued send into its snapshot (again, after a crash); nothing for any other state. */
export const startSnapshot = (trx: Executor, sendId: number) =>
  trx
    .updateTable('sends')
    .set({ status: 'snapshotting', started_at: sql`coalesce(started_at, now())`, updated_at: new Date() })
    .where('id', '=', sendId)
    .where('status', 'in', ['queued', 'snapshotting'])
    .returningAll()
    .executeTakeFirst();

/** The snapshot is taken: the send goes out, its recipients counted once. */
export const endSnapshot = (trx: Executor, sendId: number) =>
  sql`
    update sends set status = 'sending',
           recipients_count = (select count(*) from send_recipients where send_id = ${sendId}),
           updated_at = now()
     where id = ${sendId} and status = 'snapshotting'`.execute(trx);

/** What is left of a send: waiting recipients, the next retry, claims in flight. */
export const remainingOf = async (db: Executor, sendId: number) =>
  (
    await sql<{ waiting: number; next_at: Date | null; busy: number }>`
      select count(*) filter (where status in ('pending', 'deferred'))::int as waiting,
             min(next_attempt_at) filter (where status = 'deferred') as next_at,
             count(*) filter (where status = 'sending')::int as busy
        from send_recipients where send_id = ${sendId}`.execute(db)
  ).rows[0]!;

/** Whether any recipient of a send may still be sent to. */
export const hasRecipientsLeft = async (db: Executor, sendId: number) =>
  (
    await sql<{ left: boolean }>`
      select exists (select 1 from send_recipients
                      where send_id = ${sendId} and status in ('pending', 'deferred', 'sending')) as left`.execute(db)
  ).rows[0]?.left === true;

/** A drained send is finished, its counters recounted from its recipients; answers whether this call finished it. */
export const finishSend = async (db: Executor, sendId: number) => {
  await refreshCounts(db, sendId);
  const finished =
    await sql`update sends set status = 'finished', finished_at = now(), updated_at = now(), waiting_until = null,
                    note = case when note is null then null
                                else 'Sent over more than one day: the account''s daily limit held part of it back.' end
             where id = ${sendId} and status = 'sending'`.execute(db);
  return Number(finished.numAffectedRows ?? 0) > 0;
};

/** A send that waits (the daily cap) until `at`, saying why. */
export const holdSend = (db: Executor, sendId: number, at: Date, note: string) =>
  sql`update sends set waiting_until = ${at}, updated_at = now(), note = ${note}
       where id = ${sendId} and status = 'sending'`.execute(db);

/** A send stopped for good, saying why (the plan no longer allows its account); answers whether this call stopped it. */
export const failSend = async (db: Executor, sendId: number, note: string) =>
  Number(
    (
      await sql`update sends set status = 'failed', finished_at = now(), updated_at = now(), note = ${note}
       where id = ${sendId} and status = 'sending'`.execute(db)
    ).numAffectedRows ?? 0,
  ) > 0;

export const findSend = (db: Executor, sendId: number) =>
  db.selectFrom('sends').selectAll().where('id', '=', sendId).executeTakeFirst();

export const findSendStatus = async (db: Executor, sendId: number) =>
  (await db.selectFrom('sends').select('status').where('id', '=', sendId).executeTakeFirst())?.status;

export const clearWaiting = (db: Executor, sendId: number) =>
  sql`update sends set waiting_until = null where id = ${sendId}`.execute(db);

/** Scheduled sends whose time has come, queued (in the caller's transaction). */
export const queueDueScheduledSends = (trx: Executor) =>
  trx
    .updateTable('sends')
    .set({ status: 'queued', updated_at: new Date() })
    .where('status', '=', 'scheduled')
    .where('deliver_at', '<=', new Date())
    .returning('id')
    .execute();

/** What else an edit of a scheduled send may change besides its content. */
export type TScheduledSettings = Partial<{
  account_id: number;
  list_ids: number[];
  list_names: string;
  track_opens: boolean;
  track_clicks: boolean;
  /** The builder's document beside the HTML (issue 46). */
  document: unknown | null;
}>;

/** Edits a scheduled send that has not started; answers whether it did. */
export const updateScheduled = async (
  db: Executor,
  userId: number,
  id: number,
  changes: { subject: string; html: string; cc: string; bcc: string; reply_to: string; deliver_at: Date } & Partial<{
    from_name: string;
    from_address: string;
  }> &
    TScheduledSettings,
) =>
  (
    await db
      .updateTable('sends')
      .set({ ...changes, updated_at: new Date() })
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .where('status', '=', 'scheduled')
      .where('started_at', 'is', null)
      .executeTakeFirst()
  ).numUpdatedRows > 0n;

export const setScheduledStatus = async (
  db: Executor,
  userId: number,
  id: number,
  from: 'scheduled' | 'cancelled',
  to: 'scheduled' | 'cancelled',
) =>
  (
    await db
      .updateTable('sends')
      .set({ status: to, updated_at: new Date(), finished_at: to === 'cancelled' ? new Date() : null })
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .where('status', '=', from)
      .where('started_at', 'is', null)
      .executeTakeFirst()
  ).numUpdatedRows > 0n;

/** Deletes a send that is not running (its recipients and events go with it). */
export const deleteUserSend = async (db: Executor, userId: number, id: number) =>
  (
    await db
      .deleteFrom('sends')
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .where('status', 'in', ['scheduled', 'cancelled', 'finished', 'failed'])
      .executeTakeFirst()
  ).numDeletedRows > 0n;

/**
 * Pauses a running send for the circuit breaker, once, saying why; answers whether this call
 * paused it (a send paused, cancelled or finished meanwhile, or tripped before, is left alone).
 */
/**
 * A send the breaker paused, resumed by its user: it is judged again from now on, on the
 * messages after the resume (`breaker_judged_from`); the reason stays, for the card's note.
 */
export const resumeAfterBreaker = (db: Executor, sendId: number) =>
  sql`update sends set breaker_judged_from = now(), breaker_tripped_at = null, updated_at = now()
       where id = ${sendId} and breaker_tripped_at is not null`.execute(db);

export const tripSendBreaker = async (db: Executor, sendId: number, reason: string) =>
  Number(
    (
      await sql`update sends set status = 'paused', breaker_tripped_at = now(), breaker_reason = ${reason},
                                updated_at = now()
                 where id = ${sendId} and status = 'sending' and breaker_tripped_at is null`.execute(db)
    ).numAffectedRows ?? 0,
  ) > 0;

/** A new send's row, with what its path decided; answers its id. The send's snapshot job is the caller's. */
export const insertSend = async (executor: Executor, values: Insertable<SendsTable>) =>
  (await executor.insertInto('sends').values(values).returning('id').executeTakeFirstOrThrow()).id;

/** A split send's lead names itself as its group once it has an id (the table's check wants both or neither). */
export const makeSplitLead = (executor: Executor, leadId: number) =>
  executor.updateTable('sends').set({ split_group: leadId, split_part: 1 }).where('id', '=', leadId).execute();

/**
 * A send's status moved on its user's word (pause, resume, cancel), only from the statuses
 * given; answers whether it moved. A cancelled send is finished at once.
 */
export const moveSendStatus = async (
  executor: Executor,
  userId: number,
  sendId: number,
  from: TSendStatus[],
  to: 'paused' | 'sending' | 'cancelled',
) =>
  (
    await executor
      .updateTable('sends')
      .set({ status: to, updated_at: new Date(), ...(to === 'cancelled' ? { finished_at: new Date() } : {}) })
      .where('user_id', '=', userId)
      .where('id', '=', sendId)
      .where('status', 'in', from)
      .executeTakeFirst()
  ).numUpdatedRows > 0n;

/** A user's send's status, locked for the caller's transaction when asked; undefined when not theirs. */
export const findUserSendStatus = (executor: Executor, userId: number, sendId: number, { lock = false } = {}) => {
  const query = executor.selectFrom('sends').select('status').where('user_id', '=', userId).where('id', '=', sendId);
  return (lock ? query.forUpdate() : query).executeTakeFirst();
};

/** A breaker group exists with its first send (its owner and account), once. */
export const ensureBreakerGroup = (db: Executor, group: { key: string; userId: number; accountId: number }) =>
  db
    .insertInto('breaker_groups')
    .values({ key: group.key, user_id: group.userId, account_id: group.accountId })
    .onConflict((conflict) =>
      conflict.column('key').doUpdateSet({ account_id: group.accountId, updated_at: new Date() }),
    )
    .execute();

/** A group's trip, once: answers whether this call tripped it. */
export const tripBreakerGroup = async (db: Executor, key: string, reason: string) =>
  (
    await db
      .updateTable('breaker_groups')
      .set({ tripped_at: new Date(), reason, updated_at: new Date() })
      .where('key', '=', key)
      .where('tripped_at', 'is', null)
      .executeTakeFirst()
  ).numUpdatedRows > 0n;

/** A group started again by its user: judged again on the sends made from now on. */
export const resumeBreakerGroup = (db: Executor, key: string) =>
  db
    .updateTable('breaker_groups')
    .set({ tripped_at: null, reason: null, judged_from: new Date(), updated_at: new Date() })
    .where('key', '=', key)
    .where('tripped_at', 'is not', null)
    .execute();
