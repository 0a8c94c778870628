import { sql } from 'kysely';
import type { Executor } from '../../platform/db';
import { liveKeys } from '../../platform/presence';
import type { TSettleContext } from './outcomes';
/**
 * Claims (DESIGN §6: snapshot → claim → transport → settle): which recipients of a send a
 * process holds, under a lease token (the fence every later write of the claim names), its
 * presence key (a dead process's claims are taken over at once) and a lease (a stalled one's
 * after it). A claim is a row of its own (`send_claims`: fence, holder, lease, id range); the
 * recipients it took carry its token. The claim code writes a recipient's lease and handover
 * columns, and ends what an abandoned claim held (back to pending, or `unknown` when its
 * message was being handed over); every other outcome is written in `outcomes.ts`.
 */

export type TClaimed = {
  id: number;
  email: string;
  name: string;
  fields: Record<string, string>;
  /** Headers of this recipient's message alone, from its source (null for list sends). */
  headers: Record<string, string> | null;
  token: string;
  attempts: number;
};

/** Why a recipient of an abandoned claim ends `unknown` rather than being sent again. */
export const ABANDONED_HANDOVER_ERROR =
  'Sendwell stopped while handing this message over, before the answer was recorded: it may have been delivered, so it is not sent again on its own.';

/**
 * How long after PostgreSQL starts a claim made before the start waits for its process to
 * take its presence lock again (R38): a restart ends every session, so every living
 * worker's lock is gone for the moment its connection needs to come back (`presence.ts`
 * reconnects at once, then at most a second apart). A process that died with the database
 * (B12's kill of everything) has its claims taken over this much later; those made after the
 * start are judged at once.
 */
const RESTART_GRACE = sql`interval '10 seconds'`;

/**
 * A claim (`c`, a `send_claims` row) that is abandoned: its lease ran out, or its process
 * is gone (its presence lock is released, or it never had one). Never by presence a claim
 * of the asking process itself (`ownKeys`: it is alive, if only reconnecting), nor one made
 * before PostgreSQL restarted while its process still has the grace to take its lock again.
 * One condition for the reaper and both watchdog questions.
 */
const isAbandoned = (ownKeys: number[]) => sql<boolean>`
  (c.lease_until < now()
   or ((c.worker_key is null or (c.worker_key not in (${liveKeys}) and c.worker_key <> all(${ownKeys}::bigint[])))
       and not (c.created_at < pg_postmaster_start_time() and now() < pg_postmaster_start_time() + ${RESTART_GRACE})))`;

/** What a recipient's row holds of a claim, cleared when the claim lets it go. */
export const released = sql`lease_token = null, lease_until = null, worker_key = null, updated_at = now()`;

/**
 * Ends claims of a send (`which`: a condition on the claim `c`), deleting their rows: a
 * recipient still held by one whose message was never handed over goes back to pending,
 * due now and its attempt not counted; one whose message was being handed over becomes
 * `unknown`: the provider may have accepted it, and exactly once means never sending it
 * blindly again (R1, R3). Each claim's recipients are found by its id range and fenced by
 * its token. Answers how many went back to pending and how many became unknown.
 */
const endClaims = async (
  executor: Executor,
  sendId: number,
  source: 'smtp' | 'mailgun',
  which: ReturnType<typeof sql<boolean>>,
) => {
  const ended = await sql<{ pending: number; unknown: number }>`
    with ended as (
      delete from send_claims c where c.send_id = ${sendId} and ${which}
      returning c.lease_token, c.first_id, c.last_id),
    reaped as (
      update send_recipients r
         set status = case when r.started_at is null then 'pending' else 'unknown' end,
             attempts = case when r.started_at is null then greatest(r.attempts - 1, 0) else r.attempts end,
             error = case when r.started_at is null then r.error else ${ABANDONED_HANDOVER_ERROR} end,
             next_attempt_at = case when r.started_at is null then now() else r.next_attempt_at end,
             ${released}
        from ended
       where r.send_id = ${sendId} and r.id between ended.first_id and ended.last_id
         and r.lease_token = ended.lease_token and r.status = 'sending'
      returning r.id, r.send_id, r.user_id, r.email, r.status),
    events as (
      insert into delivery_events (user_id, account_id, send_id, recipient_id, email, type, source, detail)
      select reaped.user_id, s.account_id, reaped.send_id, reaped.id, reaped.email, 'unknown', ${source},
             ${ABANDONED_HANDOVER_ERROR}
        from reaped join sends s on s.id = reaped.send_id
       where reaped.status = 'unknown'),
    counted as (
      update sends set unknown_count = unknown_count + (select count(*) from reaped where status = 'unknown'),
             updated_at = now()
       where id = ${sendId} and exists (select 1 from reaped where status = 'unknown'))
    select count(*) filter (where status = 'pending')::int as pending,
           count(*) filter (where status = 'unknown')::int as unknown
      from reaped`.execute(executor);
  return ended.rows[0] ?? { pending: 0, unknown: 0 };
};

/**
 * Takes back the claims of processes that are gone (their presence lock is released) or
 * whose lease ran out (`endClaims`). Answers how many recipients went back to pending.
 */
export const reapAbandonedClaims = (
  executor: Executor,
  sendId: number,
  source: 'smtp' | 'mailgun',
  ownKeys: number[],
) => endClaims(executor, sendId, source, isAbandoned(ownKeys));

/**
 * The end of a claim of this worker: the recipients it never started (`unstarted`: none
 * of their bodies went, a committed handover mark included) go back as they were, due now
 * and the attempt not counted; then the claim's row goes, with anything it still held
 * ended as the reaper would (there is nothing, when every answer was recorded). Only while
 * the claim is still this worker's; one another worker took over is left to it.
 */
export const endClaim = async (
  executor: Executor,
  { sendId, source }: Pick<TSettleContext, 'sendId' | 'source'>,
  leaseToken: string,
  unstarted: number[] = [],
) => {
  if (unstarted.length > 0) {
    await sql`
      update send_recipients set status = 'pending', started_at = null, attempts = attempts - 1,
             next_attempt_at = now(), ${released}
       where id = any(${unstarted}::bigint[]) and lease_token = ${leaseToken}`.execute(executor);
  }
  await endClaims(executor, sendId, source, sql<boolean>`c.lease_token = ${leaseToken}`);
};

export type TClaimRequest = {
  sendId: number;
  leaseToken: string;
  leaseMs: number;
  /** The claiming process's presence key: its claims are taken over once it is gone. */
  workerKey: number;
  /** Every key the claiming process has held (`presence.ownKeys`): its own claims are not taken back on the way. */
  ownKeys: number[];
  limit: number;
  /**
   * Marks the claimed recipients handed over (`started_at`) in the claim itself, for a
   * transport that gives the whole claim to the provider in one call as soon as it is
   * composed (Mailgun's batch): one rewrite of each recipient's row fewer. A process that
   * dies between this claim and the call leaves them `unknown` rather than `pending`, as
   * one that dies during the call does; nobody is sent twice either way.
   */
  handOver?: boolean;
  /** The path the send goes through, for the events of abandoned claims taken back on the way. */
  source: 'smtp' | 'mailgun';
};

/**
 * Claims the next recipients for a process (its presence key) under a lease token, with
 * the claim's own row (`send_claims`: fence, holder, lease, id range) in the same
 * statement: recipients never claimed yet first, from where the last such claim ended
 * (`sends.claimed_to`); then, after taking back abandoned claims, those due again
 * (deferred ones whose time has come, and ones given back, through the due index); then,
 * when neither is left, any pending one the first way passed by (none should be, since such
 * claims take turns: a safety net, one scan of the send as its run drains). No index names
 * a column a claim writes, so each recipient's row is rewritten in place (the migration
 * `send_claims` says why).
 */
export const claimRecipients = async (
  db: Executor,
  { sendId, leaseToken, leaseMs, workerKey, ownKeys, limit, handOver = false, source }: TClaimRequest,
) => {
  const leaseEnd = sql`now() + ${`${leaseMs} milliseconds`}::interval`;
  const take = async (which: ReturnType<typeof sql>, order: ReturnType<typeof sql>, { movesCursor = false } = {}) =>
    (
      await sql<TClaimed>`
        with picked as (
          select id from send_recipients
           where send_id = ${sendId} and ${which}
           order by ${order}
           limit ${limit}
             for update skip locked),
        claimed as (
          update send_recipients r set status = 'sending', lease_token = ${leaseToken}, lease_until = ${leaseEnd},
                 worker_key = ${workerKey}, started_at = ${handOver ? sql`now()` : null},
                 next_attempt_at = null, attempts = attempts + 1, updated_at = now()
            from picked
           where r.id = picked.id
          returning r.id, r.email, r.name, r.fields, r.headers, r.token, r.attempts),
        claim as (
          insert into send_claims (lease_token, send_id, worker_key, lease_until, first_id, last_id)
          select ${leaseToken}, ${sendId}, ${workerKey}, ${leaseEnd}, min(id), max(id)
            from claimed
          having count(*) > 0)
        ${
          movesCursor
            ? sql`, moved as (
                update sends set claimed_to = greatest(claimed_to, (select max(id) from claimed))
                 where id = ${sendId} and exists (select 1 from claimed))`
            : sql``
        }
        select * from claimed order by id`.execute(db)
    ).rows;
  const byId = sql`id`;
  // The send's row is locked before the scan: claims of new recipients of one send take
  // turns, each from where the one before ended, instead of scanning side by side and
  // dealing the rows out between them (calls of 900 where 1,000 were due).
  const fresh = await take(
    sql`id > (select claimed_to from sends where id = ${sendId} for no key update) and status = 'pending'`,
    byId,
    { movesCursor: true },
  );
  if (fresh.length > 0) return fresh;
  await reapAbandonedClaims(db, sendId, source, ownKeys);
  // Through the due index, in the order they fell due.
  const due = await take(sql`next_attempt_at <= now() and status in ('pending', 'deferred')`, sql`next_attempt_at, id`);
  if (due.length > 0) return due;
  return take(sql`status = 'pending'`, byId);
};

/**
 * Gives back a whole claim none of whose messages was handed over: one whose statement
 * lost its connection, so the claimer never heard whether it committed (R38). By its
 * lease token alone; the handover mark a Mailgun claim carries is undone too, since its
 * call was never made. A claim another worker took over is left to it.
 */
export const releaseClaim = async (executor: Executor, leaseToken: string) => {
  await sql`
    with ended as (delete from send_claims where lease_token = ${leaseToken} returning send_id, first_id, last_id)
    update send_recipients r set status = 'pending', started_at = null, attempts = greatest(attempts - 1, 0),
           next_attempt_at = now(), ${released}
      from ended
     where r.send_id = ended.send_id and r.id between ended.first_id and ended.last_id
       and r.lease_token = ${leaseToken} and r.status = 'sending'`.execute(executor);
};

/**
 * Sends with recipients claimable now (never claimed, due again, or held by a claim of a
 * process that is gone or past its lease), for the watchdog.
 */
export const findStalledSendIds = async (db: Executor, ownKeys: number[]) =>
  (
    await sql<{ id: number }>`
      select s.id from sends s
       where s.status = 'sending'
         and (s.waiting_until is null or s.waiting_until <= now())
         and (exists (select 1 from send_recipients r
                       where r.send_id = s.id and r.id > s.claimed_to and r.status = 'pending')
              or exists (select 1 from send_recipients r
                          where r.send_id = s.id and r.next_attempt_at <= now() and r.status in ('pending', 'deferred'))
              or exists (select 1 from send_claims c where c.send_id = s.id and ${isAbandoned(ownKeys)}))`.execute(db)
  ).rows.map((row) => row.id);

/** Sends holding claims of a process that is gone, or past their lease. */
export const findSendsWithAbandonedClaims = async (db: Executor, ownKeys: number[]) =>
  (
    await sql<{ send_id: number }>`
      select distinct c.send_id from send_claims c join sends s on s.id = c.send_id
       where s.status in ('sending', 'paused', 'cancelled') and ${isAbandoned(ownKeys)}`.execute(db)
  ).rows.map((row) => row.send_id);
