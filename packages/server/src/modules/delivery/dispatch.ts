import { randomUUID } from 'node:crypto';
import { type Selectable, sql } from 'kysely';
import type { TPlatform } from '../../platform/context';
import type { Executor } from '../../platform/db';
import type { SendsTable } from '../../platform/db-schema';
import { HttpError } from '../../platform/errors';
import { groupCommit } from '../../platform/group-commit';
import { publishToUser } from '../../platform/realtime';
import type { TMailTransport } from '../../providers/mail';
import { findAccountRow, openAccountTransport } from '../accounts/accounts.service';
import { timeZoneOf } from '../auth/auth.service';
import { dailyCapOf, nextDayStart, releaseReservation, reserveToday } from './daily-cap';
import {
  addCounts,
  claimRecipients,
  clearWaiting,
  failSend,
  failUncomposable,
  findProgressOf,
  findSend,
  findSendStatus,
  finishSend,
  hasRecipientsLeft,
  holdSend,
  recordClaimProgress,
  releaseUnstarted,
  remainingOf,
  settle,
  settleBatch,
  type TClaimed,
  type TOutcome,
  type TSettleContext,
} from './delivery.repository';
import { buildBatchMessage, prepareMessage } from './message';
import { notifySendEnded } from './send-ended';
import { linksOfSend } from './tracking-links';

/**
 * The delivery engine's loop: claim recipients of a send, hand their messages to the
 * account's transport, settle each as its answer comes. The snapshot that fills a send
 * (its source) and the jobs are in `delivery.jobs.ts`, the SQL in `delivery.repository.ts`;
 * README.md beside them has the states and invariants.
 */

/** Said when a plan without sending accounts (a downgrade) meets a send through one (R23). */
export const PLAN_WITHOUT_ACCOUNTS =
  'Your plan includes no sending account but the test inbox. Upgrade your plan to send with this account.';

const lastProgress = new Map<number, number>();

/**
 * Tells the send's user how it is going (`SendProgressEvent`): at most once a second
 * while it runs, always when its state changes.
 */
export const publishProgress = async (platform: TPlatform, sendId: number, { force = false } = {}) => {
  const now = Date.now();
  if (!force && now - (lastProgress.get(sendId) ?? 0) < 1000) return;
  lastProgress.set(sendId, now);
  const send = await findProgressOf(platform.db, sendId);
  if (!send) return;
  if (['finished', 'cancelled', 'failed'].includes(send.status)) lastProgress.delete(sendId);
  const { user_id: userId, ...payload } = send;
  await publishToUser(platform.db, userId, 'SendProgressEvent', payload);
};

/** SMTP connections one dispatch run keeps open to the account's server. */
const SMTP_CONNECTIONS = 4;
/**
 * Provider batch calls (Mailgun, 1,000 recipients each) one dispatch run keeps in flight:
 * while one call travels, others are claimed, marked and settled, which is where the time
 * goes (B2: 2 in flight 7,401 recipients/s, 3 8,338–9,402, 4 9,817). Mailgun publishes no
 * concurrency limit; its 429 defers the batch with backoff like any temporary failure.
 */
export const BATCH_CALLS_IN_FLIGHT = 4;
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
/** When a send's next dispatch run is due, if it needs one (the job queues it: `delivery.jobs.ts`). */
export type TNextRun = { startAfter: Date; singletonKey?: string };

/** What is left: deferred recipients wait for their time; nothing left finishes the send. */
const afterDrain = async (platform: TPlatform, sendId: number): Promise<TNextRun | null> => {
  const { waiting, next_at: nextAt, busy } = await remainingOf(platform.db, sendId);
  if (waiting > 0 || busy > 0) {
    return { startAfter: nextAt ?? new Date(Date.now() + (busy > 0 ? platform.config.sendLeaseMs : 1000)) };
  }
  await platform.db.transaction().execute(async (trx) => {
    if (await finishSend(trx, sendId)) await notifySendEnded(platform, trx, sendId);
  });
  await publishProgress(platform, sendId, { force: true });
  return null;
};

/**
 * The account's daily cap is reached: the rest of the send waits for the user's next
 * day, and the send says so.
 */
const holdUntilTomorrow = async (platform: TPlatform, send: Selectable<SendsTable>, cap: number): Promise<TNextRun> => {
  const { at, day } = await nextDayStart(platform.db, await timeZoneOf(platform.db, send.user_id));
  await holdSend(
    platform.db,
    send.id,
    at,
    `Daily limit reached: this account sends at most ${cap.toLocaleString('en-US')} emails a day. The remaining recipients go out from ${day}.`,
  );
  await publishProgress(platform, send.id, { force: true });
  return { startAfter: at, singletonKey: `cap-${send.id}-${day}` };
};

/**
 * Claims the next recipients of a send for this process, under its presence key and lease;
 * `source` names the path in the events of abandoned claims it takes back on the way.
 */
const claim = async (
  platform: TPlatform,
  sendId: number,
  leaseToken: string,
  limit: number,
  { handOver = false, source }: { handOver?: boolean; source: TSettleContext['source'] },
) =>
  claimRecipients(platform.db, {
    sendId,
    leaseToken,
    leaseMs: platform.config.sendLeaseMs,
    workerKey: await platform.presence.key(),
    limit,
    handOver,
    source,
  });

export type TDispatchOptions = { transport?: TMailTransport; connections?: number };

/**
 * Sends a send's recipients: claim a batch, send it, checkpoint each recipient as its
 * answer comes, until nothing is due or the send is paused or cancelled. A claim is
 * fenced: its holder stops before its lease runs out, and its checkpoints apply only
 * while the claim is still its own. Answers when the next run is due, if one is
 * (retries waiting, the daily cap); the job (`dispatch` in `delivery.jobs.ts`) queues it.
 */
export const runDispatch = async (
  platform: TPlatform,
  sendId: number,
  options: TDispatchOptions = {},
): Promise<TNextRun | null> => {
  // One run per send in a process: a second would only open more connections to the
  // same server (the running one drains the send, then reschedules what is left).
  const running = runningSends.get(platform) ?? new Set<number>();
  runningSends.set(platform, running);
  if (running.has(sendId)) return null;
  running.add(sendId);
  try {
    return await dispatchRun(platform, sendId, options);
  } finally {
    running.delete(sendId);
  }
};

/** The sends a dispatch run is working on, per process (a platform stands for one). */
const runningSends = new WeakMap<TPlatform, Set<number>>();

const dispatchRun = async (
  platform: TPlatform,
  sendId: number,
  options: TDispatchOptions,
): Promise<TNextRun | null> => {
  const send = await findSend(platform.db, sendId);
  if (send?.status !== 'sending' || send.account_id === null) return null;
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
    await platform.db.transaction().execute(async (trx) => {
      if (await failSend(trx, sendId, PLAN_WITHOUT_ACCOUNTS)) await notifySendEnded(platform, trx, sendId);
    });
    await publishProgress(platform, sendId, { force: true });
    return null;
  }
  const links = send.track_clicks ? await linksOfSend(platform.db, sendId) : new Map<string, number>();
  try {
    // Checkpoints go through one connection that does not wait for the disk at each
    // commit: a worker that dies loses none of them (they are in PostgreSQL already);
    // only a crash of PostgreSQL itself can lose the last fraction of a second, and those
    // recipients are sent again, never lost. Measured: ~1.4× the messages per second.
    const account = await findAccountRow(platform.db, send.user_id, send.account_id);
    const cap = account ? dailyCapOf(account) : null;
    if (send.waiting_until) {
      await clearWaiting(platform.db, sendId);
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
    if (outcome === 'drained') return await afterDrain(platform, sendId);
    if (outcome === 'capped') {
      if (await hasRecipientsLeft(platform.db, sendId)) return await holdUntilTomorrow(platform, send, cap!);
      return await afterDrain(platform, sendId);
    }
    return null;
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

/** Recipients without headers of their own together; each one with headers alone. */
const groupByHeaders = <T extends { recipient: TClaimed }>(items: T[]): T[][] => {
  const shared = items.filter(({ recipient }) => !recipient.headers);
  const own = items.filter(({ recipient }) => recipient.headers).map((item) => [item]);
  return shared.length > 0 ? [shared, ...own] : own;
};

/** What a session reports to its claim's journal: a message about to go, or one accepted. */
type TJournalEntry = { kind: 'mark'; id: number } | { kind: 'accepted'; id: number; providerId: string | null };

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
  const isSending = async () => (await findSendStatus(platform.db, sendId)) === 'sending';
  // The daily cap's day is the user's: their time zone, read once per run.
  const timeZone = cap === null ? null : await timeZoneOf(platform.db, send.user_id);
  if (transport.sendBatch) {
    const sendBatch = transport.sendBatch;
    const { template, variablesOf } = buildBatchMessage(platform, send, links);
    // Calls in flight at once: some are prepared and checkpointed while others travel.
    const worker = async (): Promise<boolean> => {
      for (;;) {
        if (!(await isSending())) return false;
        const leaseToken = randomUUID();
        // The claim is the handover mark for the whole call (it is composed in memory and
        // sent at once): if this process dies before or while Mailgun has it, every one of
        // them ends `unknown`, none is sent twice.
        const claimed = await claim(platform, sendId, leaseToken, transport.batchSize ?? CLAIM_SIZE, {
          handOver: true,
          source: 'mailgun',
        });
        if (claimed.length === 0) return true;
        const { composed: variables, uncomposable } = composeEach(claimed, variablesOf);
        const failedToCompose = await failUncomposable(checkpoints, batchContext, leaseToken, uncomposable);
        const outcomes: (TOutcome | null)[] = [...failedToCompose];
        // Recipients whose source gave them headers of their own (a drip follow-up's
        // In-Reply-To) go in a call of their own: a batch shares one set of headers.
        for (const group of groupByHeaders(variables)) {
          const headers = group[0]!.recipient.headers;
          const results = await sendBatch(
            headers ? { ...template, headers: { ...template.headers, ...headers } } : template,
            group.map(({ recipient, composed }) => ({ to: recipient.email, variables: composed })),
          );
          outcomes.push(
            ...(await settleBatch(
              platform.db,
              batchContext,
              leaseToken,
              group.map(({ recipient }) => recipient),
              results[0]!,
            )),
          );
        }
        await addCounts(platform.db, sendId, outcomes);
        await publishProgress(platform, sendId);
      }
    };
    const drained = await Promise.all(Array.from({ length: BATCH_CALLS_IN_FLIGHT }, worker));
    return drained.every(Boolean) ? 'drained' : 'stopped';
  }
  const messageOf = prepareMessage(platform, send, links);
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
      const reservation =
        cap === null
          ? null
          : await reserveToday(platform, { accountId: send.account_id!, timeZone: timeZone! }, cap, CLAIM_SIZE);
      if (reservation?.granted === 0) return 'capped';
      const batch = await claim(platform, sendId, leaseToken, reservation?.granted ?? CLAIM_SIZE, { source: 'smtp' });
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
      const { composed, uncomposable } = composeEach(batch, messageOf);
      outcomes.push(...(await failUncomposable(checkpoints, smtpContext, leaseToken, uncomposable)));
      // One journal for the claim's sessions: the handover marks of messages about to go and
      // the checkpoints of messages accepted, group-committed (what they report while one
      // statement runs goes together in the next; B1), all fenced by the claim. A session
      // moves on once its message is accepted, and its next message's mark, which waits for
      // its own body, commits with or after that checkpoint: so, as before, at most one
      // message per session is in hand when a process dies (R1).
      const journal = groupCommit(async (entries: TJournalEntry[]) => {
        const { marked, settled } = await recordClaimProgress(platform.db, smtpContext, leaseToken, {
          marks: entries.flatMap((entry) => (entry.kind === 'mark' ? [entry.id] : [])),
          accepted: entries.flatMap((entry) => (entry.kind === 'accepted' ? [entry] : [])),
        });
        return entries.map((entry) => (entry.kind === 'mark' ? marked : settled).has(entry.id));
      });
      const checkpointing: Promise<void>[] = [];
      const results = await transport.send(
        composed.map((item) => item.composed),
        async (index, result) => {
          const recipient = composed[index]!.recipient;
          if (!result.accepted) {
            outcomes.push(await settle(checkpoints, smtpContext, leaseToken, recipient, result));
            return;
          }
          const checkpoint = journal({ kind: 'accepted', id: recipient.id, providerId: result.providerId }).then(
            (isSettled) => {
              outcomes.push(isSettled ? 'sent' : null);
            },
          );
          checkpoint.catch(() => {});
          checkpointing.push(checkpoint);
        },
        {
          startBefore: deadline,
          isStopped: () => isStopped,
          // Each message's last byte waits for its committed mark (R1): a worker killed
          // after it leaves the recipient `unknown`, never sent twice.
          beforeHandOver: (index) => journal({ kind: 'mark', id: composed[index]!.recipient.id }),
        },
      );
      await Promise.all(checkpointing);
      // What never started goes back at once.
      await releaseUnstarted(
        checkpoints,
        leaseToken,
        composed.flatMap(({ recipient }, index) => (results[index] ? [] : [recipient.id])),
      );
      await addCounts(platform.db, sendId, outcomes);
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
