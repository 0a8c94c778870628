import { randomUUID } from 'node:crypto';
import { formatDateTime } from '@sendwell/contracts';
import type { Selectable } from 'kysely';
import type { TPlatform } from '../../platform/context';
import { isConnectionLost, retryWhileDisconnected } from '../../platform/db';
import type { SendsTable } from '../../platform/db-schema';
import { isDomainError } from '../../platform/errors';
import { groupCommit } from '../../platform/group-commit';
import { emitEvents } from '../../platform/outbound-events';
import { publishToUser } from '../../platform/realtime';
import type { TMailTransport } from '../../providers/mail';
import { findAccountRow, openAccountTransport } from '../accounts/accounts.service';
import { timeZoneOf } from '../auth/auth.service';
import { claimRecipients, endClaim, releaseClaim, type TClaimed } from './claims';
import { CAP_WINDOW_HOURS, dailyCapOf, releaseReservation, reserveRoom, roomFreesAt } from './daily-cap';
import { buildBatchMessage, MessageComposeError, prepareMessage } from './message';
import {
  addCounts,
  bouncedAtHandover,
  failUncomposable,
  judgeAfterClaim,
  recordClaimProgress,
  settle,
  settleBatch,
  type TOutcome,
  type TSettleContext,
} from './outcomes';
import { emitSendEnded, notifySendEnded } from './send-ended';
import {
  clearWaiting,
  failSend,
  findSend,
  findSendStatus,
  finishSend,
  hasRecipientsLeft,
  holdSend,
  remainingOf,
} from './send-lifecycle';
import { progressEventOf } from './send-reads';
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

/** When each send's progress was last told, per process (a platform stands for one). */
const progressTold = new WeakMap<TPlatform, Map<number, number>>();

/**
 * Tells the send's user how it is going (`SendProgressEvent`): at most once a second
 * while it runs, always when its state changes.
 */
export const publishProgress = async (platform: TPlatform, sendId: number, { force = false } = {}) => {
  const now = Date.now();
  const lastProgress = progressTold.get(platform) ?? new Map<number, number>();
  progressTold.set(platform, lastProgress);
  if (!force && now - (lastProgress.get(sendId) ?? 0) < 1000) return;
  lastProgress.set(sendId, now);
  const progress = await progressEventOf(platform.db, sendId);
  if (!progress) return;
  if (['finished', 'cancelled', 'failed'].includes(progress.payload.status)) lastProgress.delete(sendId);
  await publishToUser(platform.db, progress.userId, 'SendProgressEvent', progress.payload);
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
    if (await finishSend(trx, sendId)) {
      await notifySendEnded(platform, trx, sendId);
      await emitSendEnded(platform, trx, sendId);
    }
  });
  await publishProgress(platform, sendId, { force: true });
  return null;
};

/**
 * The account's daily cap is reached: the rest of the send waits until the cap's window (the
 * last 24 hours) has room again, and the send says when, on the user's clock with the zone
 * named (a later change of zone leaves the note true).
 */
const holdUntilRoom = async (platform: TPlatform, send: Selectable<SendsTable>, cap: number): Promise<TNextRun> => {
  const at = await roomFreesAt(platform.db, send.account_id!, cap);
  const timeZone = await timeZoneOf(platform.db, send.user_id);
  await holdSend(
    platform.db,
    send.id,
    at,
    `Daily limit reached: this account sends at most ${cap.toLocaleString('en-US')} emails in any ${CAP_WINDOW_HOURS} hours. The remaining recipients go out from ${formatDateTime(at, timeZone)} (${timeZone}).`,
  );
  await publishProgress(platform, send.id, { force: true });
  return { startAfter: at, singletonKey: `cap-${send.id}-${at.toISOString()}` };
};

/**
 * While PostgreSQL cannot be reached (a restart, terminated connections), the engine keeps
 * what it holds and tries again, up to a lease's length (then the run fails and its job is
 * retried). Only for statements safe to run twice: fenced by the claim's lease token, or
 * taking back what a lost statement may have done.
 */
const persist = <T>(platform: TPlatform, work: () => Promise<T>) =>
  retryWhileDisconnected(work, { until: Date.now() + platform.config.sendLeaseMs });

/**
 * Progress for the eye (counters recounted when the send finishes, the progress event):
 * not run twice when its connection is lost, since it adds; the next one catches up.
 */
const bestEffort = async (platform: TPlatform, work: Promise<unknown>) => {
  try {
    await work;
  } catch (error) {
    if (!isConnectionLost(error)) throw error;
    platform.log.warn({ err: error }, 'progress not recorded: the database connection was lost');
  }
};

/**
 * Claims the next recipients of a send for this process, under its presence key and a new
 * lease token; `source` names the path in the events of abandoned claims it takes back on
 * the way. A claim whose connection is lost may have committed unheard: what it took goes
 * back (none of it was handed over) before the next try, under a new token (R38).
 */
const claimNext = (
  platform: TPlatform,
  sendId: number,
  limit: number,
  { handOver = false, source }: { handOver?: boolean; source: TSettleContext['source'] },
) =>
  persist(platform, async () => {
    const leaseToken = randomUUID();
    try {
      const claimed = await claimRecipients(platform.db, {
        sendId,
        leaseToken,
        leaseMs: platform.config.sendLeaseMs,
        workerKey: await platform.presence.key(),
        ownKeys: platform.presence.ownKeys(),
        limit,
        handOver,
        source,
      });
      return { leaseToken, claimed };
    } catch (error) {
      if (isConnectionLost(error)) await persist(platform, () => releaseClaim(platform.db, leaseToken));
      throw error;
    }
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
    if (!isDomainError(error, 'upgrade-required')) throw error;
    await endFailed(platform, sendId, PLAN_WITHOUT_ACCOUNTS);
    return null;
  }
  const links = send.track_clicks ? await linksOfSend(platform.db, sendId) : new Map<string, number>();
  try {
    const account = await findAccountRow(platform.db, send.user_id, send.account_id);
    const cap = account ? dailyCapOf(account) : null;
    if (send.waiting_until) {
      await clearWaiting(platform.db, sendId);
    }
    let outcome: Awaited<ReturnType<typeof sendClaims>>;
    try {
      outcome = await sendClaims(platform, send, transport, links, cap);
    } catch (error) {
      // The send's HTML cannot be composed for anyone (stored before the bounds of R40, or
      // past a CPU thread's time): it fails once, with the reason, instead of being retried.
      if (!(error instanceof MessageComposeError) || error.reason !== 'uncomposable') throw error;
      platform.log.warn({ sendId, reason: error.message }, 'send failed: its message cannot be composed');
      await endFailed(platform, sendId, `This email could not be composed: ${error.message}`.slice(0, 1000));
      return null;
    }
    // A paused or cancelled send waits as it is; a drained one is finished or rescheduled;
    // a capped one waits for room in the cap's window unless nothing is left; one this process stopped
    // sending (it is stopping) goes on at once in another worker.
    if (outcome === 'drained') return await afterDrain(platform, sendId);
    if (outcome === 'capped') {
      if (await hasRecipientsLeft(platform.db, sendId)) return await holdUntilRoom(platform, send, cap!);
      return await afterDrain(platform, sendId);
    }
    if (outcome === 'handed-on') {
      platform.log.info({ sendId }, 'stopping: the send goes on in another worker');
      return { startAfter: new Date() };
    }
    return null;
  } finally {
    if (!options.transport) transport.close();
  }
};

/** A send that cannot go on ends `failed`, once, its reason (`note`) on its progress card and in History. */
const endFailed = async (platform: TPlatform, sendId: number, note: string) => {
  await platform.db.transaction().execute(async (trx) => {
    if (await failSend(trx, sendId, note)) {
      await notifySendEnded(platform, trx, sendId);
      await emitSendEnded(platform, trx, sendId);
    }
  });
  await publishProgress(platform, sendId, { force: true });
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
 * ('stopped'), the account's daily cap is reached ('capped'), or this process is stopping
 * ('handed-on': what it held is settled or given back, and another worker goes on, R37).
 */
const sendClaims = async (
  platform: TPlatform,
  send: Selectable<SendsTable>,
  transport: TMailTransport,
  links: Map<string, number>,
  cap: number | null,
): Promise<'drained' | 'stopped' | 'capped' | 'handed-on'> => {
  const sendId = send.id;
  const batchContext: TSettleContext = { sendId, userId: send.user_id, accountId: send.account_id!, source: 'mailgun' };
  const smtpContext: TSettleContext = { ...batchContext, source: 'smtp' };
  // Checkpoints go through the pool that does not wait for the disk at each commit
  // (`checkpointDb`: ~1.4× the messages a second).
  const checkpoints = platform.checkpointDb;
  const isSending = async () => (await findSendStatus(platform.db, sendId)) === 'sending';
  const isProcessStopping = () => platform.stopping.aborted;
  if (transport.sendBatch) {
    const sendBatch = transport.sendBatch;
    const { template, variablesOf } = await buildBatchMessage(platform, send, links);
    // Calls in flight at once: some are prepared and checkpointed while others travel.
    const worker = async (): Promise<'drained' | 'stopped' | 'handed-on'> => {
      for (;;) {
        // A stopping process makes no new call: the calls in flight are answered and settled first.
        if (isProcessStopping()) return 'handed-on';
        if (!(await persist(platform, isSending))) return 'stopped';
        // The claim is the handover mark for the whole call (it is composed in memory and
        // sent at once): if this process dies before or while Mailgun has it, every one of
        // them ends `unknown`, none is sent twice.
        const { leaseToken, claimed } = await claimNext(platform, sendId, transport.batchSize ?? CLAIM_SIZE, {
          handOver: true,
          source: 'mailgun',
        });
        if (claimed.length === 0) return 'drained';
        const { composed: variables, uncomposable } = composeEach(claimed, variablesOf);
        const failedToCompose = await persist(platform, () =>
          failUncomposable(checkpoints, batchContext, leaseToken, uncomposable),
        );
        const outcomes: (TOutcome | null)[] = [...failedToCompose];
        // Recipients whose source gave them headers of their own (a drip follow-up's
        // In-Reply-To) go in a call of their own: a batch shares one set of headers.
        for (const group of groupByHeaders(variables)) {
          const headers = group[0]!.recipient.headers;
          const results = await sendBatch(
            headers ? { ...template, headers: { ...template.headers, ...headers } } : template,
            group.map(({ recipient, composed }) => ({ to: recipient.email, variables: composed })),
          );
          // The call's answer is kept through a lost connection and recorded once PostgreSQL
          // answers again, while the claim is still this worker's (R38).
          outcomes.push(
            ...(await persist(platform, () =>
              settleBatch(
                platform.db,
                batchContext,
                leaseToken,
                group.map(({ recipient }) => recipient),
                results[0]!,
                (trx, emails) => emitEvents(platform, trx, bouncedAtHandover(send, emails, results[0]!)),
              ),
            )),
          );
        }
        // Every answer is recorded: the claim's row goes.
        await persist(platform, () => endClaim(checkpoints, batchContext, leaseToken));
        await bestEffort(platform, addCounts(platform.db, sendId, outcomes));
        await bestEffort(platform, judgeAfterClaim(platform, sendId));
        await bestEffort(platform, publishProgress(platform, sendId));
      }
    };
    const ended = await Promise.all(Array.from({ length: BATCH_CALLS_IN_FLIGHT }, worker));
    if (ended.includes('handed-on')) return 'handed-on';
    return ended.every((end) => end === 'drained') ? 'drained' : 'stopped';
  }
  const messageOf = await prepareMessage(platform, send, links);
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
      // A failed look (the database blinking) is not a stop: the next tick looks again, and
      // the send's own writes fail loudly if the database is really gone.
      .catch(() => {})
      .finally(() => {
        isLooking = false;
      });
  }, STATUS_WATCH_MS);
  try {
    for (;;) {
      if (isProcessStopping()) return 'handed-on';
      if (isStopped || !(await persist(platform, isSending))) return 'stopped';
      const claimedAt = Date.now();
      const reservation =
        cap === null
          ? null
          : await persist(platform, () =>
              reserveRoom(
                platform,
                { accountId: send.account_id!, leaseMs: platform.config.sendLeaseMs },
                cap,
                CLAIM_SIZE,
              ),
            );
      if (reservation?.granted === 0) return 'capped';
      const { leaseToken, claimed: batch } = await claimNext(platform, sendId, reservation?.granted ?? CLAIM_SIZE, {
        source: 'smtp',
      });
      if (batch.length === 0) {
        if (reservation) {
          await bestEffort(platform, releaseReservation(platform.db, reservation, reservation.granted));
        }
        return 'drained';
      }
      const leaseMs = platform.config.sendLeaseMs;
      const deadline = claimedAt + leaseMs - leaseMarginMs(leaseMs);
      const outcomes: (TOutcome | null)[] = [];
      // No message starts past the claim's deadline (R4): a worker stalled beyond it, whose
      // claim another worker may now hold, sends nothing more from it. Every recipient is
      // checkpointed as its own answer comes, before its connection moves on.
      const { composed, uncomposable } = composeEach(batch, messageOf);
      outcomes.push(
        ...(await persist(platform, () => failUncomposable(checkpoints, smtpContext, leaseToken, uncomposable))),
      );
      // Set when a statement of this claim lost its connection (PostgreSQL restarting,
      // sessions terminated): no message starts until the claim's answers are recorded.
      let isDatabaseLost = false;
      // The messages whose handover was refused: their bodies never left, so they go back
      // with the claim's unstarted recipients, their attempt not counted.
      const heldBack = new Set<number>();
      // One journal for the claim's sessions: the handover marks of messages about to go and
      // the checkpoints of messages accepted, group-committed (what they report while one
      // statement runs goes together in the next; B1), all fenced by the claim. A session
      // moves on once its message is accepted, and its next message's mark, which waits for
      // its own body, commits with or after that checkpoint: so, as before, at most one
      // message per session is in hand when a process dies (R1).
      const journal = groupCommit(async (entries: TJournalEntry[]) => {
        const accepted = entries.flatMap((entry) => (entry.kind === 'accepted' ? [entry] : []));
        // While PostgreSQL is away no mark is waited for: its message is held back.
        const marks = isDatabaseLost ? [] : entries.flatMap((entry) => (entry.kind === 'mark' ? [entry.id] : []));
        // A mark must outlive a crash of PostgreSQL itself: lost, it would let the message
        // whose body already went be sent again (B12 counted 28 twice in 18,000 with marks
        // committed lazily). So a statement holding marks waits for the disk; one holding
        // only checkpoints does not (a lost checkpoint leaves its recipient `unknown`).
        const record = (marking: number[]) =>
          recordClaimProgress(
            marking.length > 0
              ? { db: platform.db, pool: platform.pool }
              : { db: checkpoints, pool: platform.checkpointPool },
            smtpContext,
            leaseToken,
            {
              marks: marking,
              accepted,
            },
          );
        let progress: Awaited<ReturnType<typeof record>>;
        try {
          progress = await record(marks);
        } catch (error) {
          if (!isConnectionLost(error)) throw error;
          if (!isDatabaseLost) {
            platform.log.warn(
              { err: error, sendId },
              'database connection lost while sending: answers in hand are kept',
            );
          }
          isDatabaseLost = true;
          // The answers in hand are recorded once PostgreSQL answers again, fenced by the
          // claim (R38); this statement's marks count as refused (one that did commit is
          // undone with the claim's unstarted recipients: its body never went).
          progress = await persist(platform, () => record([]));
        }
        return entries.map((entry) =>
          entry.kind === 'mark' ? marks.length > 0 && progress.marked.has(entry.id) : progress.settled.has(entry.id),
        );
      });
      const checkpointing: Promise<void>[] = [];
      const results = await transport.send(
        composed.map((item) => item.composed),
        async (index, result) => {
          const recipient = composed[index]!.recipient;
          if (!result.accepted) {
            // Held back before its body went (the claim is no longer this worker's, or
            // PostgreSQL is away): it never started, and goes back below.
            if (heldBack.has(index)) return;
            // A refusal settles with its webhook (`message.bounced`) in one transaction: the rare path.
            outcomes.push(
              await persist(platform, () =>
                checkpoints.transaction().execute(async (trx) => {
                  const outcome = await settle(trx, smtpContext, leaseToken, recipient, result);
                  if (outcome === 'failed')
                    await emitEvents(platform, trx, bouncedAtHandover(send, [recipient.email], result));
                  return outcome;
                }),
              ),
            );
            return;
          }
          const checkpoint = journal({ kind: 'accepted', id: recipient.id, providerId: result.providerId }).then(
            (isSettled) => {
              outcomes.push(isSettled ? 'sent' : null);
            },
          );
          // Not lost: checkpointing is awaited below, where a failed checkpoint stops the
          // batch; this only keeps the rejection from being unhandled in the meantime.
          checkpoint.catch(() => {});
          checkpointing.push(checkpoint);
        },
        {
          startBefore: deadline,
          // A pause or cancel, a stopping process, or a lost database: the messages in
          // flight finish and are recorded; no new one starts.
          isStopped: () => isStopped || isProcessStopping() || isDatabaseLost,
          // Each message's last byte waits for its committed mark (R1): a worker killed
          // after it leaves the recipient `unknown`, never sent twice.
          beforeHandOver: async (index) => {
            const isMarked = await journal({ kind: 'mark', id: composed[index]!.recipient.id }).catch(() => false);
            if (!isMarked) heldBack.add(index);
            return isMarked;
          },
        },
      );
      await Promise.all(checkpointing);
      // What never started, or was held back before its body went, goes back at once.
      const unstarted = composed.flatMap(({ recipient }, index) =>
        results[index] && !heldBack.has(index) ? [] : [recipient.id],
      );
      await persist(platform, () => endClaim(checkpoints, smtpContext, leaseToken, unstarted));
      await bestEffort(platform, addCounts(platform.db, sendId, outcomes));
      if (reservation) {
        const sent = outcomes.filter((outcome) => outcome === 'sent').length;
        await bestEffort(platform, releaseReservation(platform.db, reservation, reservation.granted - sent));
      }
      await bestEffort(platform, judgeAfterClaim(platform, sendId));
      await bestEffort(platform, publishProgress(platform, sendId));
    }
  } finally {
    clearInterval(watch);
  }
};
