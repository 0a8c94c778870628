import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import { sql } from 'kysely';
import { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import type { Executor } from '../../platform/db';
import type { SendsTable } from '../../platform/db-schema';
import { HttpError } from '../../platform/errors';
import { liveKeys } from '../../platform/presence';
import { defineJob } from '../../platform/queue';
import { publishToUser } from '../../platform/realtime';
import type { TMailTransport, TSendResult } from '../../providers/mail';
import { openAccountTransport } from '../accounts/accounts.service';
import { subscribedMembersOf } from '../lists/lists.repository';
import { notSuppressed, suppress } from '../suppression/suppression.service';
import { dailyCapOf, nextDayStart, releaseReservation, reserveToday } from './daily-cap';
import { eventsOfSettled } from './delivery-events';
import { applyPendingEvents } from './mailgun-webhooks';
import { buildBatchMessage, buildMessage } from './message';
import { linksOfSend, storeLinks } from './tracking';

/** SMTP connections one dispatch run keeps open to the account's server. */
const SMTP_CONNECTIONS = 4;
/** Provider batch calls (Mailgun, 1,000 recipients each) one dispatch run keeps in flight. */
const BATCH_CALLS_IN_FLIGHT = 2;
/** How often a running dispatch looks whether its send was paused or cancelled. */
const STATUS_WATCH_MS = 100;
/** Recipients claimed at once by one dispatch run. */
const CLAIM_SIZE = 200;
/**
 * No message starts from a claim this long before its lease (SEND_LEASE_SECONDS) ends: a
 * quarter of it, 30 s by default, as long as the SMTP socket timeout, so a message still
 * in flight has ended before another worker may take the claim over.
 */
const leaseMarginMs = (leaseMs: number) => Math.min(60_000, leaseMs / 4);
/** Retries of a temporary failure, with capped exponential backoff. */
export const MAX_ATTEMPTS = 5;
const BACKOFF_BASE_MS = 30_000;
const BACKOFF_CAP_MS = 30 * 60_000;

export const backoffMs = (attempts: number) => Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (attempts - 1));

/**
 * Takes the audience of a send once: every subscribed member of the chosen lists, one
 * row per address (any case), minus suppressed addresses. One transaction, and the
 * unique key on (send, address) besides: running it twice, or after a crash, gives the
 * same snapshot (R2). Hands over to dispatch in the same transaction.
 */
const snapshot = async (platform: TPlatform, sendId: number) => {
  await platform.db.transaction().execute(async (trx) => {
    const send = await trx
      .updateTable('sends')
      .set({ status: 'snapshotting', started_at: sql`coalesce(started_at, now())`, updated_at: new Date() })
      .where('id', '=', sendId)
      .where('status', 'in', ['queued', 'snapshotting'])
      .returning(['user_id', 'list_ids', 'html', 'track_clicks', 'cc', 'bcc'])
      .executeTakeFirst();
    if (!send) return;
    if (send.track_clicks) await storeLinks(trx, sendId, send.html);
    await sql`
      insert into send_recipients (send_id, user_id, email, name, fields, token)
      select distinct on (lower(m.email)) ${sendId}, m.user_id, m.email, m.fullname, m.fields,
             replace(gen_random_uuid()::text, '-', '')
        from ${subscribedMembersOf(send.user_id, send.list_ids)} m
       where ${notSuppressed(sql`m.user_id`, sql`m.email`)}
       order by lower(m.email), m.list_id
      on conflict (send_id, lower(email)) do nothing`.execute(trx);
    // CC and BCC addresses each get one copy, as recipients of their own: a bulk send
    // never shows one recipient's address to another.
    const copies = [
      ...new Set(
        `${send.cc},${send.bcc}`
          .split(/[,;]/)
          .map((item) => item.trim())
          .filter(Boolean),
      ),
    ];
    if (copies.length > 0) {
      await sql`
        insert into send_recipients (send_id, user_id, email, token)
        select ${sendId}, ${send.user_id}, c.email, replace(gen_random_uuid()::text, '-', '')
            from unnest(${copies}::text[]) as c(email)
         where ${notSuppressed(send.user_id, sql`c.email`)}
        on conflict (send_id, lower(email)) do nothing`.execute(trx);
    }
    await sql`
      update sends set status = 'sending',
             recipients_count = (select count(*) from send_recipients where send_id = ${sendId}),
             updated_at = now()
       where id = ${sendId} and status = 'snapshotting'`.execute(trx);
    await platform.queue.enqueue(dispatchSendJob, { sendId }, { executor: trx, singletonKey: `send-${sendId}` });
  });
};

type TClaimed = {
  id: number;
  email: string;
  name: string;
  fields: Record<string, string>;
  token: string;
  attempts: number;
};

/** Said when a plan without sending accounts (a downgrade) meets a send through one (R23). */
export const PLAN_WITHOUT_ACCOUNTS =
  'Your plan includes no sending account but the test inbox. Upgrade your plan to send with this account.';

/** Why a recipient of an abandoned claim ends `unknown` rather than being sent again. */
export const ABANDONED_HANDOVER_ERROR =
  'Sendwell stopped while handing this message over, before the answer was recorded: it may have been delivered, so it is not sent again on its own.';

/**
 * Takes back the claims of processes that are gone (their presence lock is released) or
 * whose lease ran out. A recipient whose message was never handed over goes back to
 * pending, its attempt not counted; one whose message was being handed over becomes
 * `unknown`: the provider may have accepted it, and exactly once means never sending it
 * blindly again (R1, R3). Answers how many went back to pending.
 */
export const reapAbandonedClaims = async (executor: Executor, sendId: number) => {
  const reaped = await sql<{ pending: number; unknown: number }>`
    with reaped as (
      update send_recipients r
         set status = case when r.started_at is null then 'pending' else 'unknown' end,
             attempts = case when r.started_at is null then greatest(r.attempts - 1, 0) else r.attempts end,
             error = case when r.started_at is null then r.error else ${ABANDONED_HANDOVER_ERROR} end,
             lease_token = null, lease_until = null, worker_key = null, updated_at = now()
       where r.send_id = ${sendId} and r.status = 'sending'
         and (r.lease_until < now() or r.worker_key is null or r.worker_key not in (${liveKeys}))
      returning r.id, r.send_id, r.user_id, r.email, r.status),
    events as (
      insert into delivery_events (user_id, account_id, send_id, recipient_id, email, type, source, detail)
      select reaped.user_id, s.account_id, reaped.send_id, reaped.id, reaped.email, 'unknown', 'smtp',
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
  return reaped.rows[0] ?? { pending: 0, unknown: 0 };
};

/**
 * Claims the next recipients for this process (its presence key): pending ones first,
 * then deferred ones whose time has come, after taking back abandoned claims.
 */
const claim = async (platform: TPlatform, sendId: number, leaseToken: string, limit: number) => {
  const workerKey = await platform.presence.key();
  const take = async (due: ReturnType<typeof sql>) =>
    (
      await sql<TClaimed>`
        update send_recipients set status = 'sending', lease_token = ${leaseToken},
               lease_until = now() + ${`${platform.config.sendLeaseMs} milliseconds`}::interval,
               worker_key = ${workerKey}, started_at = null,
               attempts = attempts + 1, updated_at = now()
         where id in (
           select id from send_recipients
            where send_id = ${sendId} and ${due}
            order by id
            limit ${limit}
            for update skip locked)
        returning id, email, name, fields, token, attempts`.execute(platform.db)
    ).rows;
  // Pending recipients first, straight off the (send, status, id) index; the rarer due
  // retries and abandoned claims only when no pending one is left.
  const pending = await take(sql`status = 'pending'`);
  if (pending.length > 0) return pending;
  await reapAbandonedClaims(platform.db, sendId);
  return take(sql`(status = 'pending' or (status = 'deferred' and next_attempt_at <= now()))`);
};

/**
 * Marks recipients of this worker's claim as being handed over, in a committed statement
 * (the pool's connections commit synchronously), before the provider can have their
 * message. Answers the ids marked: a recipient whose claim another worker has taken over
 * is not marked, and its message must not go.
 */
const markHandedOver = async (platform: TPlatform, leaseToken: string, ids: number[]) =>
  (
    await sql<{ id: number }>`
      update send_recipients set started_at = now()
       where id = any(${ids}::bigint[]) and lease_token = ${leaseToken} and status = 'sending'
      returning id`.execute(platform.db)
  ).rows.map((row) => row.id);

type TOutcome = 'sent' | 'deferred' | 'failed' | 'unknown';

/**
 * Gives back the recipients of a claim that were never started (its deadline came first),
 * as they were: due now, the attempt not counted. Only while the claim is still this
 * worker's; one another worker took over is left to it.
 */
const releaseUnstarted = async (executor: Executor, leaseToken: string, ids: number[]) => {
  if (ids.length === 0) return;
  await sql`
    update send_recipients set status = 'pending', lease_token = null, lease_until = null, worker_key = null,
           started_at = null, attempts = attempts - 1, updated_at = now()
     where id = any(${ids}::bigint[]) and lease_token = ${leaseToken}`.execute(executor);
};

/** Whose send a settle is for, and which path answered (what events and suppressions record). */
type TSettleContext = { sendId: number; userId: number; accountId: number; source: 'smtp' | 'mailgun' };

/** The recipient columns a settle gives back, for its event. */
const SETTLED = sql`returning id, send_id, user_id, email, status`;
const released = sql`lease_token = null, lease_until = null, worker_key = null, updated_at = now()`;

/**
 * Records one recipient's outcome and its delivery event in one statement, only while the
 * claim is still this worker's; answers what was recorded.
 */
const settle = async (
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
      },
    ]);
  }
  return outcome;
};

/**
 * Records one answer for a whole provider batch (one call, one answer) with each
 * recipient's delivery event, only for the recipients whose claim is still this worker's:
 * sent; deferred with backoff (or failed after the last attempt); failed and suppressed;
 * or unknown.
 */
const settleBatch = async (
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
    const updated = await sql<{ status: TOutcome }>`
      with settled as (
        update send_recipients
           set status = case when attempts < ${MAX_ATTEMPTS} then 'deferred' else 'failed' end,
               next_attempt_at = now() + least(${BACKOFF_CAP_MS}, ${BACKOFF_BASE_MS} * power(2, attempts - 1)) * interval '1 millisecond',
               error = ${result.error}, ${released} ${mine} ${SETTLED})
      ${eventsOfSettled({ accountId, source, type: sql`settled.status`, severity: 'temporary', detail: result.error })}
      returning type as status`.execute(checkpoints);
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
      })),
    );
  }
  return updated.rows.map(() => status);
};

/** Adds one batch's outcomes to the send's counters. */
const addCounts = (platform: TPlatform, sendId: number, outcomes: (TOutcome | null)[]) => {
  const count = (outcome: TOutcome) => outcomes.filter((item) => item === outcome).length;
  return sql`
    update sends set sent_count = sent_count + ${count('sent')}, failed_count = failed_count + ${count('failed')},
           unknown_count = unknown_count + ${count('unknown')}, updated_at = now()
     where id = ${sendId}
       -- A finished send's counters were recounted from its recipients when it finished,
       -- these outcomes included: a worker that stalled past its lease adds nothing twice.
       and status <> 'finished'`.execute(platform.db);
};

const lastProgress = new Map<number, number>();

/**
 * Tells the send's user how it is going (`SendProgressEvent`): at most once a second
 * while it runs, always when its state changes.
 */
export const publishProgress = async (platform: TPlatform, sendId: number, { force = false } = {}) => {
  const now = Date.now();
  if (!force && now - (lastProgress.get(sendId) ?? 0) < 1000) return;
  lastProgress.set(sendId, now);
  const send = await platform.db
    .selectFrom('sends')
    .select(['id', 'user_id', 'status', 'recipients_count', 'sent_count', 'failed_count', 'unknown_count', 'note'])
    .where('id', '=', sendId)
    .executeTakeFirst();
  if (!send) return;
  if (['finished', 'cancelled', 'failed'].includes(send.status)) lastProgress.delete(sendId);
  const { user_id: userId, ...payload } = send;
  await publishToUser(platform.db, userId, 'SendProgressEvent', payload);
};

/** The send's counters recounted from its recipients' states, when it finishes. */
const refreshCounts = (platform: TPlatform, sendId: number) =>
  sql`
    update sends s set sent_count = c.sent, failed_count = c.failed, unknown_count = c.unknown, updated_at = now()
      from (select count(*) filter (where status = 'sent')::int as sent,
                   count(*) filter (where status = 'failed')::int as failed,
                   count(*) filter (where status = 'unknown')::int as unknown
              from send_recipients where send_id = ${sendId}) c
     where s.id = ${sendId}`.execute(platform.db);

/** What is left: deferred recipients wait for their time; nothing left finishes the send. */
const afterDrain = async (platform: TPlatform, sendId: number) => {
  const left = await sql<{ waiting: number; next_at: Date | null; busy: number }>`
    select count(*) filter (where status in ('pending', 'deferred'))::int as waiting,
           min(next_attempt_at) filter (where status = 'deferred') as next_at,
           count(*) filter (where status = 'sending')::int as busy
      from send_recipients where send_id = ${sendId}`.execute(platform.db);
  const { waiting, next_at: nextAt, busy } = left.rows[0]!;
  if (waiting > 0 || busy > 0) {
    const startAfter = nextAt ?? new Date(Date.now() + (busy > 0 ? platform.config.sendLeaseMs : 1000));
    await platform.queue.enqueue(dispatchSendJob, { sendId }, { startAfter });
    return;
  }
  await refreshCounts(platform, sendId);
  await sql`update sends set status = 'finished', finished_at = now(), updated_at = now(), waiting_until = null,
                    note = case when note is null then null
                                else 'Sent over more than one day: the account''s daily limit held part of it back.' end
             where id = ${sendId} and status = 'sending'`.execute(platform.db);
  await publishProgress(platform, sendId, { force: true });
};

/**
 * The account's daily cap is reached: the rest of the send waits for the user's next
 * day, and the send says so.
 */
const holdUntilTomorrow = async (platform: TPlatform, send: Selectable<SendsTable>, cap: number) => {
  const { at, day } = await nextDayStart(platform.db, send.account_id!);
  await sql`update sends set waiting_until = ${at}, updated_at = now(),
                    note = ${`Daily limit reached: this account sends at most ${cap.toLocaleString('en-US')} emails a day. The remaining recipients go out from ${day}.`}
             where id = ${send.id} and status = 'sending'`.execute(platform.db);
  await platform.queue.enqueue(
    dispatchSendJob,
    { sendId: send.id },
    { startAfter: at, singletonKey: `cap-${send.id}-${day}` },
  );
  await publishProgress(platform, send.id, { force: true });
};

export type TDispatchOptions = { transport?: TMailTransport; connections?: number };

/**
 * Sends a send's recipients: claim a batch, send it, checkpoint each recipient as its
 * answer comes, until nothing is due or the send is paused or cancelled. A claim is
 * fenced: its holder stops before its lease runs out, and its checkpoints apply only
 * while the claim is still its own.
 */
export const dispatch = async (platform: TPlatform, sendId: number, options: TDispatchOptions = {}) => {
  // One run per send in a process: a second would only open more connections to the
  // same server (the running one drains the send, then reschedules what is left).
  const running = runningSends.get(platform) ?? new Set<number>();
  runningSends.set(platform, running);
  if (running.has(sendId)) return;
  running.add(sendId);
  try {
    await dispatchRun(platform, sendId, options);
  } finally {
    running.delete(sendId);
  }
};

/** The sends a dispatch run is working on, per process (a platform stands for one). */
const runningSends = new WeakMap<TPlatform, Set<number>>();

const dispatchRun = async (platform: TPlatform, sendId: number, options: TDispatchOptions) => {
  const send = await platform.db.selectFrom('sends').selectAll().where('id', '=', sendId).executeTakeFirst();
  if (send?.status !== 'sending' || send.account_id === null) return;
  let transport: TMailTransport;
  try {
    transport =
      options.transport ??
      (await openAccountTransport(platform, send.user_id, send.account_id, {
        connections: options.connections ?? SMTP_CONNECTIONS,
      }));
  } catch (error) {
    // The plan no longer allows this account (a downgrade): the send stops and says why,
    // instead of being retried forever.
    if (!(error instanceof HttpError) || error.code !== 'UPGRADE_REQUIRED') throw error;
    await sql`update sends set status = 'failed', finished_at = now(), updated_at = now(), note = ${PLAN_WITHOUT_ACCOUNTS}
               where id = ${sendId} and status = 'sending'`.execute(platform.db);
    await publishProgress(platform, sendId, { force: true });
    return;
  }
  const links = send.track_clicks ? await linksOfSend(platform.db, sendId) : new Map<string, number>();
  try {
    // Checkpoints go through one connection that does not wait for the disk at each
    // commit: a worker that dies loses none of them (they are in PostgreSQL already);
    // only a crash of PostgreSQL itself can lose the last fraction of a second, and those
    // recipients are sent again, never lost. Measured: ~1.4× the messages per second.
    const account = await platform.db
      .selectFrom('sending_accounts')
      .select(['provider', 'driver', 'mail_per_day'])
      .where('id', '=', send.account_id)
      .executeTakeFirst();
    const cap = account ? dailyCapOf(account) : null;
    if (send.waiting_until) {
      await sql`update sends set waiting_until = null where id = ${sendId}`.execute(platform.db);
    }
    const outcome = await platform.db.connection().execute(async (checkpoints) => {
      await sql`set synchronous_commit = off`.execute(checkpoints);
      try {
        return await sendClaims(platform, send, transport, links, checkpoints, cap);
      } finally {
        await sql`reset synchronous_commit`.execute(checkpoints);
      }
    });
    // A paused or cancelled send waits as it is; a drained one is finished or rescheduled;
    // a capped one waits for tomorrow unless nothing is left.
    if (outcome === 'drained') await afterDrain(platform, sendId);
    if (outcome === 'capped') {
      const left = await sql<{ left: boolean }>`
        select exists (select 1 from send_recipients
                        where send_id = ${sendId} and status in ('pending', 'deferred', 'sending')) as left`.execute(
        platform.db,
      );
      if (left.rows[0]?.left) await holdUntilTomorrow(platform, send, cap!);
      else await afterDrain(platform, sendId);
    }
  } finally {
    if (!options.transport) transport.close();
  }
};

/**
 * Composes each recipient's message (or batch variables) on its own: a recipient whose
 * message cannot be composed fails alone, with the reason, and the send goes on.
 */
const composeEach = <T>(batch: TClaimed[], compose: (recipient: TClaimed) => T) => {
  const composed: { recipient: TClaimed; composed: T }[] = [];
  const uncomposable: { recipient: TClaimed; reason: string }[] = [];
  for (const recipient of batch) {
    try {
      composed.push({ recipient, composed: compose(recipient) });
    } catch (error) {
      uncomposable.push({
        recipient,
        reason: `This message could not be composed: ${(error as Error).message}`.slice(0, 1000),
      });
    }
  }
  return { composed, uncomposable };
};

/** Records recipients whose message could not be composed as failed (not suppressed: the address is fine). */
const failUncomposable = async (
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
 * Sends claims until nothing is due ('drained'), the send is paused or cancelled
 * ('stopped'), or the account's daily cap is reached ('capped').
 */
const sendClaims = async (
  platform: TPlatform,
  send: Selectable<SendsTable>,
  transport: TMailTransport,
  links: Map<string, number>,
  checkpoints: Executor,
  cap: number | null,
): Promise<'drained' | 'stopped' | 'capped'> => {
  const sendId = send.id;
  const batchContext: TSettleContext = { sendId, userId: send.user_id, accountId: send.account_id!, source: 'mailgun' };
  const smtpContext: TSettleContext = { ...batchContext, source: 'smtp' };
  const isSending = async () =>
    (await platform.db.selectFrom('sends').select('status').where('id', '=', sendId).executeTakeFirst())?.status ===
    'sending';
  if (transport.sendBatch) {
    const sendBatch = transport.sendBatch;
    const { template, variablesOf } = buildBatchMessage(platform, send, links);
    // Calls in flight at once: some are prepared and checkpointed while others travel.
    const worker = async (): Promise<boolean> => {
      for (;;) {
        if (!(await isSending())) return false;
        const leaseToken = randomUUID();
        const claimed = await claim(platform, sendId, leaseToken, transport.batchSize ?? CLAIM_SIZE);
        if (claimed.length === 0) return true;
        const { composed: variables, uncomposable } = composeEach(claimed, variablesOf);
        const failedToCompose = await failUncomposable(checkpoints, batchContext, leaseToken, uncomposable);
        // One mark for the whole call: if this process dies while Mailgun has it, every
        // one of them ends `unknown`, none is sent twice.
        const marked = new Set(
          await markHandedOver(
            platform,
            leaseToken,
            variables.map(({ recipient }) => recipient.id),
          ),
        );
        const batch = variables.filter(({ recipient }) => marked.has(recipient.id));
        if (batch.length > 0) {
          const results = await sendBatch(
            template,
            batch.map(({ recipient, composed }) => ({ to: recipient.email, variables: composed })),
          );
          const outcomes = await settleBatch(
            checkpoints,
            batchContext,
            leaseToken,
            batch.map(({ recipient }) => recipient),
            results[0]!,
          );
          await addCounts(platform, sendId, [...outcomes, ...failedToCompose]);
        } else {
          await addCounts(platform, sendId, failedToCompose);
        }
        await publishProgress(platform, sendId);
      }
    };
    const drained = await Promise.all(Array.from({ length: BATCH_CALLS_IN_FLIGHT }, worker));
    return drained.every(Boolean) ? 'drained' : 'stopped';
  }
  // A pause or cancel is watched for while messages go out, so it takes effect after the
  // messages in flight rather than at the end of the claim.
  let isStopped = false;
  let isLooking = false;
  const watch = setInterval(() => {
    // One look at a time: a slow database gets no pile of them.
    if (isLooking) return;
    isLooking = true;
    isSending()
      .then((isStill) => {
        if (!isStill) isStopped = true;
      })
      .catch(() => {})
      .finally(() => {
        isLooking = false;
      });
  }, STATUS_WATCH_MS);
  try {
    for (;;) {
      if (isStopped || !(await isSending())) return 'stopped';
      const leaseToken = randomUUID();
      const claimedAt = Date.now();
      const reservation = cap === null ? null : await reserveToday(platform, send.account_id!, cap, CLAIM_SIZE);
      if (reservation?.granted === 0) return 'capped';
      const batch = await claim(platform, sendId, leaseToken, reservation?.granted ?? CLAIM_SIZE);
      if (batch.length === 0) {
        if (reservation) await releaseReservation(platform.db, send.account_id!, reservation, reservation.granted);
        return 'drained';
      }
      const leaseMs = platform.config.sendLeaseMs;
      const deadline = claimedAt + leaseMs - leaseMarginMs(leaseMs);
      const outcomes: (TOutcome | null)[] = [];
      // No message starts past the claim's deadline (R4): a worker stalled beyond it, whose
      // claim another worker may now hold, sends nothing more from it. Every recipient is
      // checkpointed as its own answer comes, before its connection moves on.
      const { composed, uncomposable } = composeEach(batch, (recipient) =>
        buildMessage(platform, send, recipient, links),
      );
      outcomes.push(...(await failUncomposable(checkpoints, smtpContext, leaseToken, uncomposable)));
      const results = await transport.send(
        composed.map((item) => item.composed),
        async (index, result) => {
          outcomes.push(await settle(checkpoints, smtpContext, leaseToken, composed[index]!.recipient, result));
        },
        {
          startBefore: deadline,
          isStopped: () => isStopped,
          // Each message's last byte waits for its committed mark (R1): a worker killed
          // after it leaves the recipient `unknown`, never sent twice.
          beforeHandOver: async (index) =>
            (await markHandedOver(platform, leaseToken, [composed[index]!.recipient.id])).length === 1,
        },
      );
      // What never started goes back at once.
      await releaseUnstarted(
        checkpoints,
        leaseToken,
        composed.flatMap(({ recipient }, index) => (results[index] ? [] : [recipient.id])),
      );
      await addCounts(platform, sendId, outcomes);
      if (reservation) {
        const sent = outcomes.filter((outcome) => outcome === 'sent').length;
        await releaseReservation(platform.db, send.account_id!, reservation, reservation.granted - sent);
      }
      await publishProgress(platform, sendId);
    }
  } finally {
    clearInterval(watch);
  }
};

export const snapshotSendJob = defineJob({
  name: 'sending.snapshot',
  schema: z.object({ sendId: z.number().int().positive() }),
  handler: ({ sendId }, platform) => snapshot(platform, sendId),
});

export const dispatchSendJob = defineJob({
  name: 'sending.dispatch',
  schema: z.object({ sendId: z.number().int().positive() }),
  queue: { retryLimit: 5, expireInSeconds: 3600 },
  handler: ({ sendId }, platform) => dispatch(platform, sendId),
});

/** Scheduled sends whose time has come go out through the same path as the others. */
export const startDueSends = (platform: TPlatform) =>
  platform.db.transaction().execute(async (trx) => {
    const due = await trx
      .updateTable('sends')
      .set({ status: 'queued', updated_at: new Date() })
      .where('status', '=', 'scheduled')
      .where('deliver_at', '<=', new Date())
      .returning('id')
      .execute();
    for (const { id } of due) {
      await platform.queue.enqueue(snapshotSendJob, { sendId: id }, { executor: trx, singletonKey: `snapshot-${id}` });
    }
    return due.length;
  });

/**
 * Sends whose worker died: recipients claimable now (pending, due, or claimed by a process
 * that is gone or past their lease) with no dispatch running for them get one. Dispatch
 * runs are safe side by side, so a watchdog that fires while one is alive costs a claim
 * query, nothing more.
 */
export const resumeStalledSends = async (platform: TPlatform) => {
  const stalled = await sql<{ id: number }>`
    select s.id from sends s
     where s.status = 'sending'
       and (s.waiting_until is null or s.waiting_until <= now())
       and exists (
         select 1 from send_recipients r
          where r.send_id = s.id
            and (r.status = 'pending'
                 or (r.status = 'deferred' and r.next_attempt_at <= now())
                 or (r.status = 'sending' and (r.lease_until < now() or r.worker_key is null
                                               or r.worker_key not in (${liveKeys})))))`.execute(platform.db);
  for (const { id } of stalled.rows) {
    await platform.queue.enqueue(dispatchSendJob, { sendId: id }, { singletonKey: `watch-${id}` });
  }
  return stalled.rows.length;
};

/** How often a worker looks for claims of processes that died (R28: back within seconds). */
const ABANDONED_WATCH_MS = 3000;

/**
 * Claims of a process that is gone, taken over within seconds: the sends holding them are
 * reaped (unstarted recipients back to pending, started ones `unknown`) and dispatched.
 * One cheap query when nothing died: claims in flight are a few hundred rows at most.
 */
export const recoverAbandonedClaims = async (platform: TPlatform) => {
  const abandoned = await sql<{ send_id: number }>`
    select distinct r.send_id from send_recipients r join sends s on s.id = r.send_id
     where r.status = 'sending' and s.status in ('sending', 'paused', 'cancelled')
       and (r.lease_until < now() or r.worker_key is null or r.worker_key not in (${liveKeys}))`.execute(platform.db);
  for (const { send_id: sendId } of abandoned.rows) {
    const { pending } = await reapAbandonedClaims(platform.db, sendId);
    if (pending > 0) await platform.queue.enqueue(dispatchSendJob, { sendId }, { singletonKey: `recover-${sendId}` });
    await publishProgress(platform, sendId, { force: true });
  }
  return abandoned.rows.length;
};

/**
 * A worker process's watch over sending: at start, every send left behind by processes
 * that died (their jobs may still look active in the queue) is taken up again at once;
 * then abandoned claims are looked for every few seconds. The minute's tick does the rest.
 */
export const watchSending = (platform: TPlatform) => {
  const look = () =>
    recoverAbandonedClaims(platform)
      .then(() => resumeStalledSends(platform))
      .catch((error: unknown) => platform.log.warn({ err: error }, 'looking for abandoned sends failed'));
  void look();
  let isLooking = false;
  const timer = setInterval(() => {
    if (isLooking) return;
    isLooking = true;
    recoverAbandonedClaims(platform)
      .catch((error: unknown) => platform.log.warn({ err: error }, 'looking for abandoned claims failed'))
      .finally(() => {
        isLooking = false;
      });
  }, ABANDONED_WATCH_MS);
  timer.unref();
  return () => clearInterval(timer);
};

export const sendingTickJob = defineJob({
  name: 'sending.tick',
  schema: z.object({}).passthrough(),
  cron: '* * * * *',
  handler: async (_data, platform) => {
    await startDueSends(platform);
    await resumeStalledSends(platform);
    await applyPendingEvents(platform);
  },
});

export { snapshot as snapshotSend };
