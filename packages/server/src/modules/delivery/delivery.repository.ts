import { sql } from 'kysely';
import { dateBounds } from '../../platform/date-filter';
import type { Db, Executor } from '../../platform/db';
import { liveKeys } from '../../platform/presence';
import type { TSendResult } from '../../providers/mail';
import { subscribedMembersOf } from '../lists/lists.service';
import { notSuppressed, recordSoftBounces, suppress } from '../suppression/suppression.service';
import { eventsOfSettled } from './event-record';

/**
 * The delivery engine's SQL (sends, send_recipients): snapshot, claims and leases, the
 * handover mark, settles with their delivery events, counters and the watchdog's
 * questions, and the recipient state the outside world's word changes later (first opens,
 * late failures), which the delivery-events module applies through the service.
 * `dispatch.ts` holds the loop; `delivery.jobs.ts` the jobs; README.md beside them the
 * states and invariants.
 */

/** Retries of a temporary failure, with capped exponential backoff. */
export const MAX_ATTEMPTS = 5;
const BACKOFF_BASE_MS = 30_000;
const BACKOFF_CAP_MS = 30 * 60_000;

export const backoffMs = (attempts: number) => Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (attempts - 1));

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
const released = sql`lease_token = null, lease_until = null, worker_key = null, updated_at = now()`;

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

export type TOutcome = 'sent' | 'deferred' | 'failed' | 'unknown';

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

/** Whose send a settle is for, and which path answered (what events and suppressions record). */
export type TSettleContext = { sendId: number; userId: number; accountId: number; source: 'smtp' | 'mailgun' };

/** The recipient columns a settle gives back, for its event. */
const SETTLED = sql`returning id, send_id, user_id, email, status`;

/**
 * Records one recipient's outcome and its delivery event in one statement, only while the
 * claim is still this worker's; answers what was recorded.
 */
export const settle = async (
  checkpoints: Executor,
  context: TSettleContext,
  leaseToken: string,
  recipient: TClaimed,
  result: TSendResult,
): Promise<TOutcome | null> => {
  const { sendId, userId, accountId, source } = context;
  const fenced = async (
    status: TOutcome,
    changes: ReturnType<typeof sql>,
    event: Omit<Parameters<typeof eventsOfSettled>[0], 'accountId' | 'source'>,
  ) => {
    const updated = await sql`
      with settled as (
        update send_recipients set status = ${status}, ${changes}, ${released}
         where id = ${recipient.id} and lease_token = ${leaseToken}
        ${SETTLED})
      ${eventsOfSettled({ accountId, source, ...event })}
      returning recipient_id`.execute(checkpoints);
    return updated.rows.length > 0 ? status : null;
  };
  if (result.accepted) {
    return fenced('sent', sql`sent_at = now(), provider_id = ${result.providerId}, error = null`, {
      type: 'accepted',
    });
  }
  if (result.kind === 'temporary' && recipient.attempts < MAX_ATTEMPTS) {
    return fenced(
      'deferred',
      sql`next_attempt_at = ${new Date(Date.now() + backoffMs(recipient.attempts))}, error = ${result.error}`,
      { type: 'deferred', severity: 'temporary', detail: result.error },
    );
  }
  const outcome =
    result.kind === 'unknown'
      ? await fenced('unknown', sql`error = ${result.error}`, { type: 'unknown', detail: result.error })
      : await fenced('failed', sql`error = ${result.error}`, {
          type: 'failed',
          severity: result.kind,
          detail: result.error,
        });
  if (outcome === 'failed' && result.kind === 'temporary') {
    // A temporary failure given up is a soft bounce: it counts toward the temporary suppression rule.
    await recordSoftBounces(checkpoints, [
      {
        userId,
        email: recipient.email,
        reason: 'temporary failure given up',
        message: result.error,
        source,
        sendId,
        accountId,
      },
    ]);
  }
  if (outcome && result.kind === 'permanent') {
    // A hard refusal: the address is never sent to again.
    await suppress(checkpoints, [
      {
        userId,
        email: recipient.email,
        type: 'bounce',
        reason: 'permanent failure',
        message: result.error,
        source,
        sendId,
        accountId,
      },
    ]);
  }
  return outcome;
};

/**
 * One statement for what a claim's sessions reported while the previous one ran: the
 * handover marks of the messages about to go (committed before their last byte, R1) and
 * the checkpoints of the messages accepted, each with its accepted event; all fenced by
 * the claim's lease token. A recipient is never in both: its checkpoint comes after its
 * mark committed. Answers which were marked and which were settled.
 */
export const recordClaimProgress = async (
  db: Executor,
  context: TSettleContext,
  leaseToken: string,
  { marks, accepted }: { marks: number[]; accepted: { id: number; providerId: string | null }[] },
) => {
  // A statement of marks alone inserts no event, so the events table's statement trigger
  // (the reports' counters) does not run for it: with few sessions most statements hold
  // one or two entries, and the trigger ran for each (B1: PostgreSQL 425 → 363 µs a message).
  const marking = sql`
    marked as (
      update send_recipients set started_at = now()
       where id = any(${marks}::bigint[]) and lease_token = ${leaseToken} and status = 'sending'
      returning id
    )`;
  const settling = sql`
    settled as (
      update send_recipients r set status = 'sent', sent_at = now(), provider_id = a.provider_id, error = null,
             ${released}
        from unnest(${accepted.map((item) => item.id)}::bigint[], ${accepted.map((item) => item.providerId)}::text[])
             as a (id, provider_id)
       where r.id = a.id and r.lease_token = ${leaseToken}
      returning r.id, r.send_id, r.user_id, r.email, r.status
    ), events as (
      ${eventsOfSettled({ accountId: context.accountId, source: context.source, type: 'accepted' })}
      returning recipient_id
    )`;
  const query =
    accepted.length === 0
      ? sql`with ${marking} select 'marked' as kind, id from marked`
      : sql`with ${marking}, ${settling}
            select 'marked' as kind, id from marked
            union all
            select 'settled' as kind, recipient_id as id from events`;
  const rows = await sql<{ kind: 'marked' | 'settled'; id: string }>`${query}`.execute(db);
  const of = (kind: 'marked' | 'settled') =>
    new Set(rows.rows.filter((row) => row.kind === kind).map((row) => Number(row.id)));
  return { marked: of('marked'), settled: of('settled') };
};

/**
 * Records one answer for a whole provider batch (one call, one answer) with each
 * recipient's delivery event, only for the recipients whose claim is still this worker's:
 * sent; deferred with backoff (or failed after the last attempt); failed and suppressed;
 * or unknown. In a transaction of its own, lazily committed like every checkpoint, so the
 * calls a dispatch run keeps in flight settle side by side (B2).
 */
export const settleBatch = (
  db: Db,
  context: TSettleContext,
  leaseToken: string,
  batch: TClaimed[],
  result: TSendResult,
): Promise<(TOutcome | null)[]> =>
  db.transaction().execute(async (trx) => {
    await sql`set local synchronous_commit = off`.execute(trx);
    return recordBatchAnswer(trx, context, leaseToken, batch, result);
  });

const recordBatchAnswer = async (
  checkpoints: Executor,
  context: TSettleContext,
  leaseToken: string,
  batch: TClaimed[],
  result: TSendResult,
): Promise<(TOutcome | null)[]> => {
  const { sendId, userId, accountId, source } = context;
  const ids = batch.map((recipient) => recipient.id);
  const mine = sql`where id = any(${ids}::bigint[]) and lease_token = ${leaseToken}`;
  if (result.accepted) {
    const updated = await sql<{ status: TOutcome }>`
      with settled as (
        update send_recipients set status = 'sent', sent_at = now(), provider_id = ${result.providerId}, error = null,
               ${released} ${mine} ${SETTLED})
      ${eventsOfSettled({ accountId, source, type: 'accepted' })}
      returning 'sent' as status`.execute(checkpoints);
    return updated.rows.map((row) => row.status);
  }
  if (result.kind === 'temporary') {
    const updated = await sql<{ status: TOutcome; email: string }>`
      with settled as (
        update send_recipients
           set status = case when attempts < ${MAX_ATTEMPTS} then 'deferred' else 'failed' end,
               next_attempt_at = now() + least(${BACKOFF_CAP_MS}, ${BACKOFF_BASE_MS} * power(2, attempts - 1)) * interval '1 millisecond',
               error = ${result.error}, ${released} ${mine} ${SETTLED})
      ${eventsOfSettled({ accountId, source, type: sql`settled.status`, severity: 'temporary', detail: result.error })}
      returning type as status, email`.execute(checkpoints);
    await recordSoftBounces(
      checkpoints,
      updated.rows
        .filter((row) => row.status === 'failed')
        .map((row) => ({
          userId,
          email: row.email,
          reason: 'temporary failure given up',
          message: result.error,
          source,
          sendId,
          accountId,
        })),
    );
    return updated.rows.map((row) => (row.status === ('deferred' as TOutcome) ? 'deferred' : 'failed'));
  }
  const status = result.kind === 'unknown' ? 'unknown' : 'failed';
  const updated = await sql<{ email: string }>`
    with settled as (
      update send_recipients set status = ${status}, error = ${result.error}, ${released} ${mine} ${SETTLED})
    ${eventsOfSettled({
      accountId,
      source,
      type: status,
      severity: result.kind === 'permanent' ? 'permanent' : null,
      detail: result.error,
    })}
    returning email`.execute(checkpoints);
  if (result.kind === 'permanent') {
    await suppress(
      checkpoints,
      updated.rows.map((row) => ({
        userId,
        email: row.email,
        type: 'bounce' as const,
        reason: 'permanent failure',
        message: result.error,
        source,
        sendId,
        accountId,
      })),
    );
  }
  return updated.rows.map(() => status);
};

/** Adds one batch's outcomes to the send's counters. */
export const addCounts = (db: Executor, sendId: number, outcomes: (TOutcome | null)[]) => {
  const count = (outcome: TOutcome) => outcomes.filter((item) => item === outcome).length;
  return sql`
    update sends set sent_count = sent_count + ${count('sent')}, failed_count = failed_count + ${count('failed')},
           unknown_count = unknown_count + ${count('unknown')}, updated_at = now()
     where id = ${sendId}
       -- A finished send's counters were recounted from its recipients when it finished,
       -- these outcomes included: a worker that stalled past its lease adds nothing twice.
       and status <> 'finished'`.execute(db);
};

/** The send's counters recounted from its recipients' states, when it finishes. */
export const refreshCounts = (db: Executor, sendId: number) =>
  sql`
    update sends s set sent_count = c.sent, failed_count = c.failed, unknown_count = c.unknown, updated_at = now()
      -- Sent is what the provider accepted (GLOSSARY.md): a bounce after acceptance stays in it.
      from (select count(*) filter (where sent_at is not null)::int as sent,
                   count(*) filter (where status = 'failed')::int as failed,
                   count(*) filter (where status = 'unknown')::int as unknown
              from send_recipients where send_id = ${sendId}) c
     where s.id = ${sendId}`.execute(db);

/** Records recipients whose message could not be composed as failed (not suppressed: the address is fine). */
export const failUncomposable = async (
  checkpoints: Executor,
  { accountId, source }: TSettleContext,
  leaseToken: string,
  uncomposable: { recipient: TClaimed; reason: string }[],
): Promise<TOutcome[]> => {
  const outcomes: TOutcome[] = [];
  for (const { recipient, reason } of uncomposable) {
    const updated = await sql`
      with settled as (
        update send_recipients set status = 'failed', error = ${reason}, ${released}
         where id = ${recipient.id} and lease_token = ${leaseToken}
        ${SETTLED})
      ${eventsOfSettled({ accountId, source, type: 'failed', detail: reason })}
      returning recipient_id`.execute(checkpoints);
    if (updated.rows.length > 0) outcomes.push('failed');
  }
  return outcomes;
};

/**
 * A send's audience from its lists (the `lists` source): every subscribed member of the
 * chosen lists, one row per address in any case, minus suppressed addresses; then its CC
 * and BCC addresses, one copy each as recipients of their own (a bulk send never shows
 * one recipient's address to another). The unique key on (send, address) makes it
 * idempotent (R2).
 */
export const insertListAudience = async (
  trx: Executor,
  send: { id: number; user_id: number; list_ids: number[]; cc: string; bcc: string },
) => {
  await sql`
    insert into send_recipients (send_id, user_id, email, name, fields, token)
    select distinct on (lower(m.email)) ${send.id}, m.user_id, m.email, m.fullname, m.fields,
           replace(gen_random_uuid()::text, '-', '')
      from ${subscribedMembersOf(send.user_id, send.list_ids)} m
     where ${notSuppressed(send.user_id, sql`m.email`)}
     order by lower(m.email), m.list_id
    on conflict (send_id, lower(email)) do nothing`.execute(trx);
  const copies = [
    ...new Set(
      `${send.cc},${send.bcc}`
        .split(/[,;]/)
        .map((item) => item.trim())
        .filter(Boolean),
    ),
  ];
  await insertCopies(trx, send.id, send.user_id, copies);
};

/** CC and BCC addresses as recipients of their own, each once, less the suppressed. */
const insertCopies = async (trx: Executor, sendId: number, userId: number, copies: string[]) => {
  if (copies.length === 0) return;
  await sql`
    insert into send_recipients (send_id, user_id, email, token)
    select ${sendId}, ${userId}, c.email, replace(gen_random_uuid()::text, '-', '')
      from unnest(${copies}::text[]) as c(email)
     where ${notSuppressed(userId, sql`c.email`)}
    on conflict (send_id, lower(email)) do nothing`.execute(trx);
};

/**
 * The snapshot of a split send (an A/B subject test, issue 31 §4), taken by its lead part:
 * the lists' audience as `insertListAudience` takes it, in an order no list gives (a hash of
 * the lead's id and the address, so a retried snapshot deals the same way), dealt out in one
 * statement: the first `perPart × parts` in turn to the test parts (`abSplitSizes` in
 * contracts is the same rule), everyone else to the rest (part 0), with the CC and BCC copies.
 * One row per address across all parts: nobody gets the email twice.
 */
export const insertSplitAudience = async (
  trx: Executor,
  lead: {
    id: number;
    user_id: number;
    list_ids: number[];
    cc: string;
    bcc: string;
    split_test_percent: number | null;
  },
) => {
  await sql`
    with audience as (
      select distinct on (lower(m.email)) m.user_id, m.email, m.fullname, m.fields
        from ${subscribedMembersOf(lead.user_id, lead.list_ids)} m
       where ${notSuppressed(lead.user_id, sql`m.email`)}
       order by lower(m.email), m.list_id),
    parts as (select id, split_part from sends where split_group = ${lead.id}),
    sizes as (
      select (select count(*) from parts where split_part > 0) as parts, (select count(*) from audience) as total),
    per_part as (
      -- numeric rounds halves up, as Math.round does in abSplitSizes (float8 would round them to even).
      select parts, least(total / greatest(parts, 1),
                          greatest(1, round(total::numeric * ${lead.split_test_percent ?? 0}::numeric / 100
                                            / greatest(parts, 1)))) as size
        from sizes),
    dealt as (
      select a.*, row_number() over (order by md5(${lead.id}::text || lower(a.email)), lower(a.email)) as position
        from audience a)
    insert into send_recipients (send_id, user_id, email, name, fields, token)
    select p.id, d.user_id, d.email, d.fullname, d.fields, replace(gen_random_uuid()::text, '-', '')
      from dealt d cross join per_part s
      join parts p on p.split_part = case when d.position <= s.size * s.parts then (d.position - 1) % s.parts + 1 else 0 end
    on conflict (send_id, lower(email)) do nothing`.execute(trx);
  const rest = await trx
    .selectFrom('sends')
    .select('id')
    .where('split_group', '=', lead.id)
    .where('split_part', '=', 0)
    .executeTakeFirst();
  const copies = [
    ...new Set(
      `${lead.cc},${lead.bcc}`
        .split(/[,;]/)
        .map((item) => item.trim())
        .filter(Boolean),
    ),
  ];
  if (rest) await insertCopies(trx, rest.id, lead.user_id, copies);
};

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

/**
 * Re-send by engagement (issue 31 §3): a previous send's recipients who did (or did not)
 * engage, as one query fragment for the count shown before confirming and for the snapshot,
 * so both read the same rule: accepted and not failed; not opened / opened / clicked (a given
 * link); never unsubscribed or complained through that send; not suppressed now; and still
 * subscribed to one of its lists (an unsubscribe since, from any message, is respected).
 */
const engagedRecipientsOf = (
  previous: { id: number; user_id: number; list_ids: number[] },
  audience: 'not-opened' | 'opened' | 'clicked',
  linkId: number | null,
) => {
  const filter =
    audience === 'not-opened'
      ? sql`r.opened_at is null and r.clicked_at is null`
      : audience === 'opened'
        ? sql`r.opened_at is not null`
        : linkId === null
          ? sql`r.clicked_at is not null`
          : sql`exists (select 1 from delivery_events e
                         where e.send_id = ${previous.id} and e.recipient_id = r.id and e.type = 'clicked'
                           and e.link_id = ${linkId})`;
  return sql`(select r.user_id, r.email, r.name, r.fields from send_recipients r
     where r.send_id = ${previous.id} and r.sent_at is not null and r.status <> 'failed'
       and r.unsubscribed_at is null and r.complained_at is null and ${filter}
       and ${notSuppressed(previous.user_id, sql`r.email`)}
       and lower(r.email) in (select lower(m.email) from ${subscribedMembersOf(previous.user_id, previous.list_ids)} m))`;
};

export const countEngagedRecipients = async (
  db: Executor,
  previous: { id: number; user_id: number; list_ids: number[] },
  audience: 'not-opened' | 'opened' | 'clicked',
  linkId: number | null,
) =>
  (
    await sql<{
      count: number;
    }>`select count(*)::int as count from ${engagedRecipientsOf(previous, audience, linkId)} a`.execute(db)
  ).rows[0]?.count ?? 0;

/** The snapshot of a re-send by engagement: the previous send's engaged recipients, once each. */
export const insertEngagedAudience = async (
  trx: Executor,
  send: {
    id: number;
    user_id: number;
    resend_of: number | null;
    resend_audience: string | null;
    resend_link_id: number | null;
  },
) => {
  if (send.resend_of === null) return;
  const previous = await trx
    .selectFrom('sends')
    .select(['id', 'user_id', 'list_ids'])
    .where('id', '=', send.resend_of)
    .where('user_id', '=', send.user_id)
    .executeTakeFirst();
  if (!previous) return;
  await sql`
    insert into send_recipients (send_id, user_id, email, name, fields, token)
    select ${send.id}, a.user_id, a.email, a.name, a.fields, replace(gen_random_uuid()::text, '-', '')
      from ${engagedRecipientsOf(
        { id: Number(previous.id), user_id: previous.user_id, list_ids: previous.list_ids.map(Number) },
        send.resend_audience as 'not-opened' | 'opened' | 'clicked',
        send.resend_link_id === null ? null : Number(send.resend_link_id),
      )} a
    on conflict (send_id, lower(email)) do nothing`.execute(trx);
};

/** A send's tracked links and how many of its recipients clicked each. */
export const findLinkClicks = async (db: Executor, sendId: number) =>
  (
    await sql<{ id: number; url: string; clicked: number }>`
      select l.id, l.url, count(distinct e.recipient_id)::int as clicked
        from send_links l left join delivery_events e on e.link_id = l.id and e.send_id = ${sendId} and e.type = 'clicked'
       where l.send_id = ${sendId}
       group by l.id, l.url order by l.id`.execute(db)
  ).rows.map((row) => ({ ...row, id: Number(row.id) }));

/**
 * The recipients a source gives with its send (a drip step's, a spam test's address), less
 * the suppressed, once per address (the first given wins). Answers how many were kept.
 */
export const insertGivenRecipients = async (
  trx: Executor,
  send: { id: number; user_id: number },
  recipients: { email: string; name: string; fields: Record<string, string>; headers: Record<string, string> | null }[],
) => {
  if (recipients.length === 0) return 0;
  const inserted = await sql<{ id: number }>`
    insert into send_recipients (send_id, user_id, email, name, fields, headers, token)
    select ${send.id}, ${send.user_id}, r.email, r.name, r.fields, r.headers, replace(gen_random_uuid()::text, '-', '')
      from (select distinct on (lower(g.item->>'email')) g.position, g.item->>'email' as email,
                   g.item->>'name' as name, g.item->'fields' as fields,
                   nullif(g.item->'headers', 'null'::jsonb) as headers
              from jsonb_array_elements(${JSON.stringify(recipients)}::jsonb) with ordinality as g(item, position)
             order by lower(g.item->>'email'), g.position) r
     where ${notSuppressed(send.user_id, sql`r.email`)}
     order by r.position
    on conflict (send_id, lower(email)) do nothing
    returning id`.execute(trx);
  return inserted.rows.length;
};

/** What became of each recipient of a send, in the order they were given. */
export const findRecipientOutcomes = (db: Executor, userId: number, sendId: number) =>
  db
    .selectFrom('send_recipients')
    .innerJoin('sends', 'sends.id', 'send_recipients.send_id')
    .select([
      'send_recipients.id',
      'send_recipients.email',
      'send_recipients.token',
      'send_recipients.status',
      'send_recipients.error',
      'send_recipients.sent_at',
      'send_recipients.opened_at',
      'send_recipients.clicked_at',
      'sends.id as send_id',
      'sends.from_address',
    ])
    .where('sends.user_id', '=', userId)
    .where('send_recipients.send_id', '=', sendId)
    .orderBy('send_recipients.id')
    .execute();

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

/** What the progress card shows, with the owner to tell. */
export const findProgressOf = (db: Executor, sendId: number) =>
  db
    .selectFrom('sends')
    .select([
      'id',
      'user_id',
      'status',
      'recipients_count',
      'sent_count',
      'failed_count',
      'unknown_count',
      'note',
      'breaker_reason',
    ])
    .where('id', '=', sendId)
    .executeTakeFirst();

/** Scheduled sends whose time has come, queued (in the caller's transaction). */
export const queueDueScheduledSends = (trx: Executor) =>
  trx
    .updateTable('sends')
    .set({ status: 'queued', updated_at: new Date() })
    .where('status', '=', 'scheduled')
    .where('deliver_at', '<=', new Date())
    .returning('id')
    .execute();

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

// --- what the outside world's word changes (the delivery-events module, through the service) ---

/** A recipient an outside event names, with whose send, account and user it is. */
export type TEventRecipient = {
  id: number;
  send_id: number;
  email: string;
  user_id: number;
  account_id: number | null;
};

/**
 * The recipient rows these references may name, by position (`recipient-refs.ts`): a row
 * id (new messages) or a token (messages sent before references), each found by its
 * unique index; the caller checks each reference's MAC against the row's token. With
 * `accountIds`, only a send of that account counts for each reference (a reference is not
 * an authority across accounts: a webhook names its account).
 */
export const findRecipientsByIdsOrTokens = async (
  db: Executor,
  given: { id: number | null; token: string | null; accountId: number | null }[],
): Promise<(TEventRecipient & { position: number; token: string })[]> => {
  if (given.length === 0) return [];
  const found = await sql<TEventRecipient & { position: number; token: string }>`
    with given as (
      select * from unnest(${given.map((item) => item.id)}::bigint[], ${given.map((item) => item.token)}::text[],
                           ${given.map((item) => item.accountId)}::bigint[])
             with ordinality as given (id, token, account_id, position))
    select given.position, r.id, r.send_id, r.email, r.user_id, s.account_id, r.token
      from given join send_recipients r on r.id = given.id
      join sends s on s.id = r.send_id and (given.account_id is null or s.account_id = given.account_id)
    union all
    select given.position, r.id, r.send_id, r.email, r.user_id, s.account_id, r.token
      from given join send_recipients r on r.token = given.token
      join sends s on s.id = r.send_id and (given.account_id is null or s.account_id = given.account_id)`.execute(db);
  return found.rows.map((row) => ({
    ...row,
    id: Number(row.id),
    send_id: Number(row.send_id),
    user_id: Number(row.user_id),
    account_id: row.account_id === null ? null : Number(row.account_id),
    position: Number(row.position),
  }));
};

/** The recipients of one send with these addresses (any case): a report that names several. */
export const findSendRecipientsByEmails = async (
  db: Executor,
  sendId: number,
  emails: string[],
): Promise<TEventRecipient[]> =>
  emails.length === 0
    ? []
    : (
        await sql<TEventRecipient>`
          select r.id, r.send_id, r.email, r.user_id, s.account_id
            from send_recipients r join sends s on s.id = r.send_id
           where r.send_id = ${sendId} and lower(r.email) = any(${emails.map((email) => email.toLowerCase())}::text[])`.execute(
          db,
        )
      ).rows.map((row) => ({
        ...row,
        id: Number(row.id),
        send_id: Number(row.send_id),
        user_id: Number(row.user_id),
        account_id: row.account_id === null ? null : Number(row.account_id),
      }));

/** The recipient column an outside event sets the first time, and the send counter it moves then. */
export const FIRST_TIME = {
  delivered: { column: 'delivered_at', counter: 'delivered_count' },
  opened: { column: 'opened_at', counter: 'opened_count' },
  clicked: { column: 'clicked_at', counter: 'clicked_count' },
  complained: { column: 'complained_at', counter: 'complained_count' },
  unsubscribed: { column: 'unsubscribed_at', counter: 'unsubscribed_count' },
} as const;
export type TFirstTimeKind = keyof typeof FIRST_TIME;
export type TSendCounter = (typeof FIRST_TIME)[TFirstTimeKind]['counter'] | 'failed_count';

/**
 * Sets a first-time column on the recipients that do not have it yet; answers each recipient
 * it set with its send, so a repeated event, or two in one batch, counts nothing twice.
 */
export const setFirstTimes = async (db: Executor, kind: TFirstTimeKind, recipientIds: number[]) => {
  if (recipientIds.length === 0) return [];
  const { column } = FIRST_TIME[kind];
  const updated = await sql<{ id: number; send_id: number }>`
    update send_recipients set ${sql.ref(column)} = now(), updated_at = now()
     where id = any(${recipientIds}::bigint[]) and ${sql.ref(column)} is null
    returning id, send_id`.execute(db);
  return updated.rows.map((row) => ({ recipientId: Number(row.id), sendId: Number(row.send_id) }));
};

/**
 * A recipient whose message was accepted and then failed for good (a provider's permanent
 * failure event, a bounce message): `failed`, with the words; answers its send when it
 * changed (not already failed), for the send's counter.
 */
export const failRecipient = async (db: Executor, recipientId: number, error: string) => {
  const failed = await sql<{ send_id: number }>`
    update send_recipients set status = 'failed', error = ${error}, updated_at = now()
     where id = ${recipientId} and status <> 'failed'
    returning send_id`.execute(db);
  return failed.rows[0] ? Number(failed.rows[0].send_id) : null;
};

/**
 * Moves sends' counters by what a batch of events changed, one statement per send, in id
 * order, so concurrent batches queue on a send rather than deadlock.
 */
export const addToSendCounters = async (db: Executor, counters: Map<number, Map<TSendCounter, number>>) => {
  for (const [sendId, byCounter] of [...counters].sort(([left], [right]) => left - right)) {
    const sets = [...byCounter].map(
      ([counter, increment]) => sql`${sql.ref(counter)} = ${sql.ref(counter)} + ${increment}`,
    );
    if (sets.length > 0) {
      await sql`update sends set ${sql.join(sets)}, updated_at = now() where id = ${sendId}`.execute(db);
    }
  }
};

/** A recipient an unsubscribe link names (by row id or, for older messages, token), with its send's sender for the page. */
export const findRecipientForPage = (db: Executor, by: { id: number } | { token: string }) =>
  db
    .selectFrom('send_recipients')
    .innerJoin('sends', 'sends.id', 'send_recipients.send_id')
    .select([
      'send_recipients.id',
      'send_recipients.token',
      'send_recipients.email',
      'send_recipients.unsubscribed_at',
      'send_recipients.user_id',
      'sends.id as send_id',
      'sends.account_id',
      'sends.from_name',
      'sends.from_address',
    ])
    .where((eb) => ('id' in by ? eb('send_recipients.id', '=', by.id) : eb('send_recipients.token', '=', by.token)))
    .executeTakeFirst();

/** A stored link target of a send (a click may only ever go there, R16). */
export const findSendLink = (db: Executor, sendId: number, linkId: number) =>
  db
    .selectFrom('send_links')
    .select(['id', 'url'])
    .where('id', '=', linkId)
    .where('send_id', '=', sendId)
    .executeTakeFirst();

// --- the user's sends as their screens read and change them (History, Scheduled Emails) ---

/** A user's sends, for the history and scheduled tables. */
export const selectUserSends = (db: Executor, userId: number) =>
  db
    .selectFrom('sends')
    .select([
      'sends.id',
      'sends.account_id',
      'sends.type',
      'sends.status',
      'sends.note',
      'sends.from_name',
      'sends.from_address',
      'sends.subject',
      'sends.list_names',
      'sends.list_ids',
      'sends.cc',
      'sends.bcc',
      'sends.reply_to',
      'sends.html',
      'sends.track_opens',
      'sends.track_clicks',
      'sends.recipients_count',
      'sends.sent_count',
      'sends.failed_count',
      'sends.unknown_count',
      'sends.delivered_count',
      'sends.opened_count',
      'sends.clicked_count',
      'sends.complained_count',
      'sends.unsubscribed_count',
      'sends.deliver_at',
      'sends.started_at',
      'sends.finished_at',
      'sends.created_at',
      'sends.split_group',
      'sends.split_part',
    ])
    .where('sends.user_id', '=', userId)
    // The history lists what a user sent from the Send Email page; drip steps and spam
    // tests have screens of their own.
    .where('sends.source', '=', 'lists');

export type TSendRow = Awaited<ReturnType<ReturnType<typeof selectUserSends>['executeTakeFirstOrThrow']>>;

export const findUserSend = (db: Executor, userId: number, id: number) =>
  selectUserSends(db, userId).where('sends.id', '=', id).executeTakeFirst();

/** The delivery events of one send, as the history detail table shows them. */
export const selectSendEvents = (db: Executor, sendId: number) =>
  db
    .selectFrom('delivery_events')
    .select([
      'id',
      'email as recipient',
      sql<string>`case when type = 'accepted' then 'sent' else type end`.as('event_type'),
      'detail',
      'occurred_at as created_at',
      'is_first',
    ])
    .where('send_id', '=', sendId);

/** Edits a scheduled send that has not started; answers whether it did. */
export const updateScheduled = async (
  db: Executor,
  userId: number,
  id: number,
  changes: { subject: string; html: string; cc: string; bcc: string; reply_to: string; deliver_at: Date } & Partial<{
    account_id: number;
    from_name: string;
    from_address: string;
    list_ids: number[];
    list_names: string;
    track_opens: boolean;
    track_clicks: boolean;
  }>,
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
 * A user's delivery events of a kind and within the spec's date filters (`first_date`,
 * `last_date`, read in `timeZone`), newest first by the caller's order (the dashboard's table
 * and export): the events of the user's messages, as the dashboard's counters count them
 * (R33): none of a spam test (not a send), none a provider reports about an address Sendwell
 * sent nothing to.
 */
export const selectUserEvents = (
  db: Executor,
  userId: number,
  filters: { type?: string | undefined; first_date?: string | undefined; last_date?: string | undefined },
  timeZone: string,
) => {
  let rows = db
    .selectFrom('delivery_events')
    .leftJoin('sends', 'sends.id', 'delivery_events.send_id')
    .select([
      'delivery_events.id',
      'delivery_events.email as recipient',
      'delivery_events.type as event_type',
      'delivery_events.severity',
      'delivery_events.occurred_at as created_at',
      'delivery_events.detail',
      'delivery_events.is_first',
    ])
    .where('delivery_events.user_id', '=', userId)
    .where('delivery_events.recipient_id', 'is not', null)
    .where((eb) => eb.or([eb('sends.source', 'is', null), eb('sends.source', '<>', 'spam-test')]));
  if (filters.type) rows = rows.where('delivery_events.type', '=', filters.type as never);
  for (const bound of dateBounds('delivery_events.occurred_at', filters, timeZone)) rows = rows.where(bound);
  return rows;
};

/**
 * How a send's failed recipients split into hard and soft bounces (its failed events'
 * severities; one failed event per recipient). History's counts and details read it.
 */
export const findBounceSplit = async (db: Executor, sendId: number) => {
  const row = (
    await sql<{ hard: number; soft: number }>`
      select count(*) filter (where severity = 'permanent')::int as hard,
             count(*) filter (where severity is distinct from 'permanent')::int as soft
        from delivery_events where send_id = ${sendId} and type = 'failed'`.execute(db)
  ).rows[0];
  return { hard: row?.hard ?? 0, soft: row?.soft ?? 0 };
};

/**
 * What the circuit breaker judges each running send of Send Email by (issue 31), from the
 * maintained counters: the messages handed over as far as the counters know (accepted,
 * unknown, and refused at handover: a failure event of a recipient never accepted), its hard
 * bounces and complaints. Failure events are few (a send passing 5 %
 * stops), so reading them per send stays cheap; the lines are the account's (accounts module). The counters lag the messages of claims in
 * progress: the caller counts those exactly before it trips anything.
 */
export const findBreakerFigures = async (db: Executor, sendIds: number[]) =>
  sendIds.length === 0
    ? []
    : (
        await sql<{
          id: number;
          user_id: number;
          account_id: number;
          attempts: number;
          hard_bounces: number;
          complaints: number;
        }>`
          select s.id, s.user_id, s.account_id,
                 (s.sent_count + s.unknown_count + coalesce(f.refused, 0))::int as attempts,
                 coalesce(f.hard, 0)::int as hard_bounces, s.complained_count as complaints
            from sends s
            left join lateral (
              select count(*) filter (where e.severity = 'permanent') as hard,
                     count(*) filter (where r.sent_at is null) as refused
                from delivery_events e join send_recipients r on r.id = e.recipient_id
               where e.send_id = s.id and e.type = 'failed') f on true
           where s.id = any(${sendIds}::bigint[]) and s.source = 'lists' and s.status = 'sending'
             and s.breaker_tripped_at is null and s.account_id is not null
           order by s.id`.execute(db)
      ).rows.map((row) => ({
        ...row,
        id: Number(row.id),
        user_id: Number(row.user_id),
        account_id: Number(row.account_id),
      }));

/** The messages of a send handed over so far, counted from its recipients (the breaker's exact figure). */
export const countHandedOver = async (db: Executor, sendId: number) =>
  (
    await sql<{ handed: number }>`
      select count(*)::int as handed from send_recipients
       where send_id = ${sendId}
         and (status in ('sent', 'failed', 'unknown', 'deferred') or started_at is not null)`.execute(db)
  ).rows[0]?.handed ?? 0;

/**
 * Pauses a running send for the circuit breaker, once, saying why; answers whether this call
 * paused it (a send paused, cancelled or finished meanwhile, or tripped before, is left alone).
 */
export const tripSendBreaker = async (db: Executor, sendId: number, reason: string) =>
  Number(
    (
      await sql`update sends set status = 'paused', breaker_tripped_at = now(), breaker_reason = ${reason},
                                updated_at = now()
                 where id = ${sendId} and status = 'sending' and breaker_tripped_at is null`.execute(db)
    ).numAffectedRows ?? 0,
  ) > 0;

/**
 * How recent sends to any of these lists went (the pre-send check): their messages handed
 * over, hard bounces and complaints, over the last `days` days. Sends of the `lists` source
 * naming one of the lists; each send's failure events are few.
 */
export const recentListFigures = async (db: Executor, userId: number, listIds: number[], days: number) =>
  (
    await sql<{ sends: number; attempts: number; hard_bounces: number; complaints: number }>`
      with recent as (
        select id, sent_count, unknown_count, complained_count from sends
         where user_id = ${userId} and source = 'lists' and list_ids && ${listIds}::bigint[]
           and created_at > now() - make_interval(days => ${days}) and status in ('finished', 'sending', 'paused', 'cancelled'))
      select count(*)::int as sends,
             coalesce(sum(sent_count + unknown_count), 0)::int as attempts,
             coalesce(sum(complained_count), 0)::int as complaints,
             (select count(*)::int from delivery_events e
               where e.send_id in (select id from recent) and e.type = 'failed' and e.severity = 'permanent') as hard_bounces
        from recent`.execute(db)
  ).rows[0]!;

/** Of these sends, the ones with a hard bounce (a permanent failure event): a drip campaign's breaker counts them. */
export const findHardBouncedSends = async (db: Executor, sendIds: number[]) =>
  sendIds.length === 0
    ? []
    : (
        await sql<{ send_id: number }>`
          select distinct send_id from delivery_events
           where send_id = any(${sendIds}::bigint[]) and type = 'failed' and severity = 'permanent'`.execute(db)
      ).rows.map((row) => Number(row.send_id));
