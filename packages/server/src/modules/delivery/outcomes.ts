/**
 * Outcomes in one place (DESIGN §8, issue 44): what a result means for a recipient (its
 * state, its send's counters, its delivery event, a suppression, the circuit breaker's
 * look) is written here and nowhere else. The engine's own answers are settled here, fenced
 * by their claim (an SMTP answer, a provider batch's answer, the journal's checkpoints, a
 * message that could not be composed), and so is the outside world's word about a message
 * later (`applyOutcomes`: provider webhooks, bounce and complaint reports, opens, clicks,
 * unsubscribes), which every intake of the delivery-events module hands over once it has
 * parsed it and found its recipient. The rules both share are written once: the retry
 * backoff (`backoffUntil`), what a failure suppresses (`suppressFailures`), the counters.
 * That is why it is one file of about 700 lines: split, the one place DESIGN §8 asks for
 * would be several again.
 */
import { sql } from 'kysely';
import type pg from 'pg';
import type { TPlatform } from '../../platform/context';
import { type Db, type Executor, runPrepared } from '../../platform/db';
import type { TDeliveryEventType } from '../../platform/db-schema';
import { emitEvents } from '../../platform/outbound-events';
import type { TSendResult } from '../../providers/mail';
import type { TOutboundEvent } from '../module';
import { recordSoftBounces, suppress, unsubscribeEverywhere } from '../suppression/suppression.service';
import { judgeSends } from './circuit-breaker.service';
import { released, type TClaimed } from './claims';
import { eventsOfSettled, findRecordedProviderIds, insertDeliveryEvents, type TNewDeliveryEvent } from './event-record';
import type { TEventRecipient } from './send-reads';

/** Retries of a temporary failure, with capped exponential backoff. */
export const MAX_ATTEMPTS = 5;
const BACKOFF_BASE_MS = 30_000;
const BACKOFF_CAP_MS = 30 * 60_000;

/**
 * When a recipient deferred after its `attempts`-th try is due again: 30 s, doubling, at
 * most 30 minutes. The one statement of the rule, in SQL, so a settle of one recipient and
 * one of a whole batch (each recipient its own count) read the same formula.
 */
const backoffUntil = (attempts: ReturnType<typeof sql>) =>
  sql`now() + least(${BACKOFF_CAP_MS}, ${BACKOFF_BASE_MS} * power(2, ${attempts} - 1)) * interval '1 millisecond'`;

/** Who failed, for the suppression their failure makes (`suppressFailures`). */
type TFailed = {
  userId: number;
  email: string;
  accountId: number | null;
  sendId: number | null;
  source: 'smtp' | 'mailgun';
  message: string | null;
  reason?: string;
  description?: string | null;
};

/**
 * What a failure suppresses, for every path that records one (a refusal at handover, a
 * provider batch's answer, a bounce report, a provider's event): a permanent one (a hard
 * bounce) suppresses the address for good; a temporary one given up (a soft bounce) counts
 * toward the temporary suppression rule (contracts `TEMPORARY_SUPPRESSION`).
 */
const suppressFailures = async (executor: Executor, severity: 'permanent' | 'temporary', failed: TFailed[]) => {
  if (failed.length === 0) return;
  if (severity === 'permanent') {
    await suppress(
      executor,
      failed.map((entry) => ({ ...entry, type: 'bounce' as const, reason: entry.reason ?? 'permanent failure' })),
    );
  } else {
    await recordSoftBounces(
      executor,
      failed.map((entry) => ({ ...entry, reason: entry.reason ?? 'temporary failure given up' })),
    );
  }
};

export type TOutcome = 'sent' | 'deferred' | 'failed' | 'unknown';

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
    return fenced('deferred', sql`next_attempt_at = ${backoffUntil(sql`attempts`)}, error = ${result.error}`, {
      type: 'deferred',
      severity: 'temporary',
      detail: result.error,
    });
  }
  const outcome =
    result.kind === 'unknown'
      ? await fenced('unknown', sql`error = ${result.error}`, { type: 'unknown', detail: result.error })
      : await fenced('failed', sql`error = ${result.error}`, {
          type: 'failed',
          severity: result.kind,
          detail: result.error,
        });
  if (outcome === 'failed' && result.kind !== 'unknown') {
    await suppressFailures(checkpoints, result.kind, [
      { userId, email: recipient.email, message: result.error, source, sendId, accountId },
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
  /** Where it runs: the durable pool for marks, the checkpoints' for settles alone. */
  { db, pool }: { db: Db; pool: pg.Pool },
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
  // By name: one or two entries a statement most of the time, so parsing and planning the
  // statement was as much of PostgreSQL's work as the rows (B1).
  const rows = await runPrepared(pool, db, sql<{ kind: 'marked' | 'settled'; id: string }>`${query}`);
  const of = (kind: 'marked' | 'settled') =>
    new Set(rows.filter((row) => row.kind === kind).map((row) => Number(row.id)));
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
  /** Runs in the same transaction with the addresses that failed for good (their webhooks). */
  onFailed?: (trx: Executor, emails: string[]) => Promise<void>,
): Promise<(TOutcome | null)[]> =>
  db.transaction().execute(async (trx) => {
    await sql`set local synchronous_commit = off`.execute(trx);
    const { outcomes, failed } = await recordBatchAnswer(trx, context, leaseToken, batch, result);
    if (onFailed && failed.length > 0) await onFailed(trx, failed);
    return outcomes;
  });

const recordBatchAnswer = async (
  checkpoints: Executor,
  context: TSettleContext,
  leaseToken: string,
  batch: TClaimed[],
  result: TSendResult,
): Promise<{ outcomes: (TOutcome | null)[]; failed: string[] }> => {
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
    return { outcomes: updated.rows.map((row) => row.status), failed: [] };
  }
  if (result.kind === 'temporary') {
    const updated = await sql<{ status: TOutcome; email: string }>`
      with settled as (
        update send_recipients
           set status = case when attempts < ${MAX_ATTEMPTS} then 'deferred' else 'failed' end,
               next_attempt_at = ${backoffUntil(sql`attempts`)},
               error = ${result.error}, ${released} ${mine} ${SETTLED})
      ${eventsOfSettled({ accountId, source, type: sql`settled.status`, severity: 'temporary', detail: result.error })}
      returning type as status, email`.execute(checkpoints);
    await suppressFailures(
      checkpoints,
      'temporary',
      updated.rows
        .filter((row) => row.status === 'failed')
        .map((row) => ({ userId, email: row.email, message: result.error, source, sendId, accountId })),
    );
    return {
      outcomes: updated.rows.map((row) => (row.status === ('deferred' as TOutcome) ? 'deferred' : 'failed')),
      failed: updated.rows.filter((row) => row.status === 'failed').map((row) => row.email),
    };
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
    await suppressFailures(
      checkpoints,
      'permanent',
      updated.rows.map((row) => ({ userId, email: row.email, message: result.error, source, sendId, accountId })),
    );
  }
  return {
    outcomes: updated.rows.map(() => status),
    failed: status === 'failed' ? updated.rows.map((row) => row.email) : [],
  };
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

/**
 * The outside world's word about a message, as every intake (Mailgun's webhooks, bounce
 * messages, open and click tracking, unsubscribe links) gives it to `applyOutcomes`:
 * provider-neutral, the recipient already found by the token the message carried.
 */
export type TIntakeEvent = {
  /** The message's recipient; null when the event names an address Sendwell cannot tie to a message. */
  recipient: TEventRecipient | null;
  /** Whose event it is, when there is no recipient (an address the provider names). */
  userId: number;
  accountId: number | null;
  email: string;
  type: Exclude<TDeliveryEventType, 'accepted' | 'unknown'>;
  severity?: 'temporary' | 'permanent' | null;
  source: TNewDeliveryEvent['source'];
  /**
   * The event's own id where it has one (a provider's event id, a bounce message's id): it is
   * recorded and applied once however often it arrives (R10).
   */
  providerEventId?: string | null;
  /** The provider's or receiving server's own words. */
  detail?: string | null;
  linkId?: number | null;
  /** A click's target, for its webhook. */
  url?: string;
  occurredAt?: Date;
  /** An open counted from a click (`applyOutcomes`): recorded the recipient's first time only. */
  isImplied?: boolean;
  /** What a suppression this event makes says (a word or two, and the words in full). */
  suppression?: { reason: string; message?: string | null; description?: string | null };
};

const isFirstTimeKind = (kind: string): kind is TFirstTimeKind => Object.hasOwn(FIRST_TIME, kind);

/**
 * The webhook event of an outside event applied (issue 48 §3), ordered per member by the
 * address: delivered, bounced (hard or soft), complained, opened and clicked (every one;
 * `first` says whether it moved the figure).
 */
const messageEventsOf = (event: TIntakeEvent, isFirst: boolean): TOutboundEvent[] => {
  const email = event.recipient?.email ?? event.email;
  const common = {
    send_id: event.recipient?.send_id ?? null,
    email,
    occurred_at: (event.occurredAt ?? new Date()).toISOString(),
  };
  const of = (type: TOutboundEvent['type'], data: Record<string, unknown> = {}): TOutboundEvent[] => [
    {
      userId: event.recipient?.user_id ?? event.userId,
      type,
      orderingKey: email.toLowerCase(),
      data: { ...common, ...data },
    },
  ];
  switch (event.type) {
    case 'delivered':
      return of('message.delivered');
    case 'failed':
      return of('message.bounced', {
        bounce: event.severity === 'permanent' ? 'hard' : 'soft',
        message: event.suppression?.message ?? event.detail ?? null,
      });
    case 'complained':
      return of('message.complained');
    case 'opened':
      // An open counted from a click (the reader clicked without loading the pixel) says so.
      return of('message.opened', { first: isFirst, ...(event.isImplied ? { from_click: true } : {}) });
    case 'clicked':
      return of('message.clicked', { first: isFirst, link_id: event.linkId ?? null, url: event.url ?? null });
    default:
      return [];
  }
};

/**
 * `message.bounced` webhooks (issue 48 §3) of messages refused for good at handover (a 5xx,
 * or a temporary failure given up), as `messageEventsOf` gives those reported later. Not a
 * spam test's: a spam test is no send to its user.
 */
export const bouncedAtHandover = (
  send: { id: number; user_id: number; source: string },
  emails: string[],
  result: TSendResult,
): TOutboundEvent[] =>
  result.accepted || send.source === 'spam-test'
    ? []
    : emails.map((email) => ({
        userId: send.user_id,
        type: 'message.bounced' as const,
        orderingKey: email.toLowerCase(),
        data: {
          send_id: send.id,
          email,
          bounce: result.kind === 'permanent' ? 'hard' : 'soft',
          message: result.error,
          occurred_at: new Date().toISOString(),
        },
      }));

/** Events every occurrence of which is recorded (a figure counts the recipient's first only). */
const isRepeatable = (event: TIntakeEvent) =>
  !event.isImplied && (event.type === 'opened' || event.type === 'clicked' || event.type === 'deferred');

const keyOf = (event: TIntakeEvent) => (event.providerEventId ? `${event.source}\u0000${event.providerEventId}` : null);

/**
 * The outside world's word applied, for every intake (each one parses its input, finds the
 * recipient by the reference its message carried, and hands the events here): records the
 * events and applies what each new one means, in the caller's transaction, so every screen
 * counts each recipient once (R33):
 *
 * - An event whose provider id is recorded already changes nothing (R10).
 * - delivered, complained, unsubscribed: the recipient's first-time column and its send's
 *   counter, and the event recorded, the first time only; a recipient reported twice
 *   (two copies of a complaint, Mailgun's delivered and a retry) is one event.
 * - opened, clicked: every one recorded; the first of a recipient sets its column, moves
 *   its send's counter and is marked `is_first` (what the dashboard counts).
 * - failed: the recipient `failed` and its send's counter moved, once: a second failure
 *   report for a failed recipient is not another event. A permanent failure (a hard bounce)
 *   suppresses the address with the server's words (a later hard report for a recipient
 *   that failed soft still does); a temporary one (a soft bounce) counts toward the
 *   temporary suppression rule.
 * - complained: the address suppressed as a complaint and unsubscribed from every list of
 *   the account; unsubscribed: unsubscribed from every list of the account.
 * - deferred: recorded only (a delay never counts as failed).
 *
 * Events naming no recipient (an address a provider reports that Sendwell sent nothing to)
 * are recorded and suppress as before, and count for nobody. Sends that gained a hard bounce
 * or a complaint are then judged by the circuit breaker (`delivery/circuit-breaker.service.ts`),
 * in the same transaction: a send past its account's line pauses with the event that tripped it. Answers, for each event given,
 * whether it was new (its provider id not seen before, and it changed or recorded something).
 */
export const applyOutcomes = async (platform: TPlatform, trx: Executor, given: TIntakeEvent[]): Promise<boolean[]> => {
  // A click is an open too (R33, contracts `figures.ts`): a reader whose client blocks images
  // or fetches nothing still opened the message they clicked in, as Mailchimp and listmonk
  // count it. Each click brings an implied open, recorded only when it is the recipient's
  // first, so `opened` includes every clicker on every screen, the engagement re-send and the
  // A/B metric alike.
  const events: TIntakeEvent[] = [];
  const positions: number[] = [];
  for (const event of given) {
    if (event.type === 'clicked' && event.recipient) {
      events.push({
        ...event,
        type: 'opened',
        providerEventId: null,
        linkId: null,
        detail: IMPLIED_OPEN,
        isImplied: true,
      });
    }
    positions.push(events.push(event) - 1);
  }
  const isNew = await applyEach(platform, trx, events);
  return positions.map((position) => isNew[position]!);
};

/** What an open counted from a click says of itself. */
const IMPLIED_OPEN = 'Counted from a click: the reader opened the message to click in it.';

const applyEach = async (platform: TPlatform, trx: Executor, events: TIntakeEvent[]): Promise<boolean[]> => {
  // An event is considered once: the first of a provider id in this call, if not recorded before.
  const recorded = await findRecordedProviderIds(
    trx,
    events.flatMap((event) =>
      event.providerEventId ? [{ source: event.source, providerEventId: event.providerEventId }] : [],
    ),
  );
  const offered = new Set<string>();
  const isConsidered = events.map((event) => {
    const key = keyOf(event);
    if (key === null) return true;
    if (recorded.has(key) || offered.has(key)) return false;
    offered.add(key);
    return true;
  });
  const counters = new Map<number, Map<TSendCounter, number>>();
  const count = (sendId: number, counter: TSendCounter) => {
    const bySend = counters.get(sendId) ?? new Map<TSendCounter, number>();
    bySend.set(counter, (bySend.get(counter) ?? 0) + 1);
    counters.set(sendId, bySend);
  };
  // First-time columns: one statement per kind for the whole batch (delivered, opened and
  // clicked are nearly all of a provider's traffic). A recipient set now is first once.
  const firstOf = new Map<TFirstTimeKind, Set<number>>();
  const byKind = new Map<TFirstTimeKind, number[]>();
  events.forEach((event, index) => {
    if (!isConsidered[index] || !event.recipient || !isFirstTimeKind(event.type)) return;
    byKind.set(event.type, [...(byKind.get(event.type) ?? []), event.recipient.id]);
  });
  for (const [kind, recipientIds] of byKind) {
    const set = await setFirstTimes(trx, kind, recipientIds);
    for (const { sendId } of set) count(sendId, FIRST_TIME[kind].counter);
    firstOf.set(kind, new Set(set.map((item) => item.recipientId)));
  }
  // Failures: the recipient fails once, in arrival order.
  const isFirstFailure = new Map<number, boolean>();
  for (const [index, event] of events.entries()) {
    if (!isConsidered[index] || event.type !== 'failed' || !event.recipient) continue;
    const sendId = await failRecipient(
      trx,
      event.recipient.id,
      event.suppression?.message || event.detail || 'bounced',
    );
    isFirstFailure.set(index, sendId !== null);
    if (sendId !== null) count(sendId, 'failed_count');
  }
  // What is recorded: every considered event, less a recipient's repeats of once-only kinds.
  const isFirst = events.map((event, index) => {
    if (!isConsidered[index] || !event.recipient) return isConsidered[index]!;
    if (event.type === 'failed') return isFirstFailure.get(index) === true;
    if (isFirstTimeKind(event.type)) {
      const first = firstOf.get(event.type);
      // Only one event of a batch is a recipient's first.
      const isFirstNow = first?.delete(event.recipient.id) === true;
      return isFirstNow;
    }
    return true;
  });
  const toRecord = events.flatMap((event, index) =>
    isConsidered[index] && (isFirst[index] || isRepeatable(event)) ? [{ event, index }] : [],
  );
  const inserted = await insertDeliveryEvents(
    trx,
    toRecord.map(({ event, index }) => ({
      userId: event.recipient?.user_id ?? event.userId,
      accountId: event.recipient?.account_id ?? event.accountId,
      sendId: event.recipient?.send_id ?? null,
      recipientId: event.recipient?.id ?? null,
      email: event.recipient?.email ?? event.email,
      type: event.type,
      severity: event.severity ?? null,
      source: event.source,
      providerEventId: event.providerEventId ?? null,
      detail: event.detail ?? null,
      linkId: event.linkId ?? null,
      isFirst: isFirst[index]!,
      ...(event.occurredAt ? { occurredAt: event.occurredAt } : {}),
    })),
  );
  const isNew = events.map(() => false);
  toRecord.forEach(({ index }, position) => {
    isNew[index] = inserted[position] === true;
  });
  // A failure report for a recipient already failed records no event, but a hard one still suppresses.
  events.forEach((event, index) => {
    if (isConsidered[index] && event.type === 'failed' && event.severity === 'permanent' && !isFirst[index]) {
      isNew[index] = true;
    }
  });
  // Suppressions and unsubscribes (rare) event by event, in arrival order.
  const softBounces: TFailed[] = [];
  for (const [index, event] of events.entries()) {
    if (!isNew[index]) continue;
    const userId = event.recipient?.user_id ?? event.userId;
    const accountId = event.recipient?.account_id ?? event.accountId;
    const email = event.recipient?.email ?? event.email;
    const entry = {
      userId,
      email,
      reason: event.suppression?.reason ?? event.type,
      message: event.suppression?.message ?? event.detail ?? null,
      description: event.suppression?.description ?? null,
      source: event.source === 'mailgun' ? ('mailgun' as const) : ('smtp' as const),
      sendId: event.recipient?.send_id ?? null,
      accountId,
    };
    switch (event.type) {
      case 'failed':
        if (event.severity === 'permanent') await suppressFailures(trx, 'permanent', [entry]);
        else if (event.severity === 'temporary') softBounces.push(entry);
        break;
      case 'complained':
        await suppress(trx, [{ ...entry, type: 'complained' }]);
        if (accountId !== null) await unsubscribeEverywhere(platform, trx, { userId, accountId, email }, 'complaint');
        break;
      case 'unsubscribed':
        // Kept as a suppression too: the Suppression screen lists what the dashboard counts (issue 45 §4).
        await suppress(trx, [{ ...entry, type: 'unsubscribed' }]);
        if (accountId !== null) {
          await unsubscribeEverywhere(
            platform,
            trx,
            { userId, accountId, email },
            event.source === 'recipient' ? 'unsubscribe-link' : 'provider',
          );
        }
        break;
      default:
        break;
    }
  }
  await suppressFailures(trx, 'temporary', softBounces);
  await addToSendCounters(trx, counters);
  await emitEvents(
    platform,
    trx,
    events.flatMap((event, index) => (isNew[index] ? messageEventsOf(event, isFirst[index] === true) : [])),
  );
  // What the breaker judges: hard bounces and complaints, new for their recipient.
  const judged = events.flatMap((event, index) =>
    isNew[index] &&
    event.recipient &&
    ((event.type === 'failed' && event.severity === 'permanent') || event.type === 'complained')
      ? [event.recipient.send_id]
      : [],
  );
  if (judged.length > 0) await judgeSends(platform, trx, judged);
  return isNew;
};

/**
 * The recipients of a send left `unknown` go back to pending on the user's word (they may
 * get the message twice: the user chose it), their count leaves the send's, and a finished
 * send runs again for them. Answers how many.
 */
export const requeueUnknown = async (executor: Executor, sendId: number) => {
  const again = await sql<{ id: number }>`
    update send_recipients set status = 'pending', started_at = null, error = null, attempts = 0,
           next_attempt_at = now(), updated_at = now()
     where send_id = ${sendId} and status = 'unknown' returning id`.execute(executor);
  const count = again.rows.length;
  if (count > 0) {
    await sql`
      update sends set unknown_count = greatest(unknown_count - ${count}, 0), updated_at = now(),
             status = case when status = 'finished' then 'sending' else status end,
             finished_at = case when status = 'finished' then null else finished_at end
       where id = ${sendId}`.execute(executor);
  }
  return count;
};

/**
 * The circuit breaker's look after each claim, its counters just moved: refusals at handover
 * are hard bounces no intake sees, and a send that reached 200 messages with the intake's
 * bounces already in is judged here (a pause stops the loop at its next status look).
 */
export const judgeAfterClaim = (platform: TPlatform, sendId: number) =>
  platform.db.transaction().execute((trx) => judgeSends(platform, trx, [sendId]));
