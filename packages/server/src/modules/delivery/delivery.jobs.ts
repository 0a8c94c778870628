import { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import { defineJob, defineScheduledJob } from '../../platform/queue';
import { findAccountRow } from '../accounts/accounts.service';
import { insertEngagedAudience, insertListAudience, insertSplitAudience } from './audience';
import { findSendsWithAbandonedClaims, findStalledSendIds, reapAbandonedClaims } from './claims';
import { publishProgress, runDispatch, type TDispatchOptions } from './dispatch';
import { MessageComposeError, webHrefsOn } from './message';
import {
  endSnapshot,
  findSend,
  findSplitParts,
  queueDueScheduledSends,
  startSnapshot,
  startSplitParts,
} from './send-lifecycle';
import { storeLinks, uniqueLinks } from './tracking-links';

/**
 * The delivery engine's jobs and its worker watch. Their queue names keep the `sending.`
 * prefix they were first queued under: a running installation's queued jobs carry them. A send's recipients come from its
 * source, taken once by the snapshot job; everything after (claim, transport, settle) is
 * the same engine for every source (`dispatch.ts`).
 */

/**
 * Where a send's recipients come from: a one-off or scheduled send's lists, taken at the
 * snapshot; a drip step and a spam test give theirs at creation. A new kind of send adds a
 * source here, not a pipeline.
 */
type TSendSource = (trx: Parameters<typeof insertListAudience>[0], send: SendRow) => Promise<void>;
type SendRow = NonNullable<Awaited<ReturnType<typeof startSnapshot>>>;

export const sendSources: Record<SendRow['source'], TSendSource> = {
  // A re-send by engagement is of this source too: its audience is a previous send's recipients.
  // A split send's lead (an A/B test) deals its lists' audience out to every part of it.
  lists: (trx, send) =>
    send.split_group !== null
      ? insertSplitAudience(trx, send)
      : send.resend_audience
        ? insertEngagedAudience(trx, send)
        : insertListAudience(trx, send),
  // These give their recipients when the send is created (`createSourcedSend`).
  drip: async () => {},
  'spam-test': async () => {},
  // A signup's confirmation email (the signup module): one recipient, the address that signed up.
  confirmation: async () => {},
  // A saved template to one address through the API (issue 48 §2).
  transactional: async () => {},
};

/**
 * The links of a send's HTML to track, found on a CPU pool thread. HTML the pool cannot read
 * in its time stores none: composing meets the same HTML and fails the send, with the reason.
 */
const linksToTrack = async (platform: TPlatform, html: string) => {
  try {
    return uniqueLinks(await webHrefsOn(platform, html));
  } catch (error) {
    if (!(error instanceof MessageComposeError)) throw error;
    return [];
  }
};

/**
 * Takes a send's recipients once, from its source, in one transaction that also queues
 * its dispatch: running it again, or after a crash, gives the same snapshot (R2). Links
 * to track are stored with it.
 */
export const snapshotSend = async (platform: TPlatform, sendId: number) => {
  await platform.db.transaction().execute(async (trx) => {
    const send = await startSnapshot(trx, sendId);
    if (!send) return;
    if (send.track_clicks) await storeLinks(trx, sendId, await linksToTrack(platform, send.html));
    await sendSources[send.source](trx, send);
    await endSnapshot(trx, sendId);
    await platform.queue.enqueue(dispatchSendJob, { sendId }, { executor: trx, singletonKey: `send-${sendId}` });
    if (send.split_group === null) return;
    // The other parts of a split send: their links (each send tracks its own), then the test
    // parts go out with the lead; the rest stays held for its decision.
    if (send.track_clicks) {
      for (const part of await findSplitParts(trx, send.user_id, sendId)) {
        if (part.id !== sendId) await storeLinks(trx, part.id, await linksToTrack(platform, part.html));
      }
    }
    for (const partId of await startSplitParts(trx, sendId)) {
      await platform.queue.enqueue(
        dispatchSendJob,
        { sendId: partId },
        { executor: trx, singletonKey: `send-${partId}` },
      );
    }
  });
};

export const snapshotSendJob = defineJob({
  name: 'sending.snapshot',
  schema: z.object({ sendId: z.number().int().positive() }),
  handler: ({ sendId }, platform) => snapshotSend(platform, sendId),
});

/**
 * A dispatch run of a send (`runDispatch`), and the next one queued when it is due: retries
 * waiting for their time, or the daily cap's next day.
 */
export const dispatch = async (platform: TPlatform, sendId: number, options: TDispatchOptions = {}) => {
  const next = await runDispatch(platform, sendId, options);
  if (next) await platform.queue.enqueue(dispatchSendJob, { sendId }, next);
};

export const dispatchSendJob = defineJob({
  name: 'sending.dispatch',
  schema: z.object({ sendId: z.number().int().positive() }),
  queue: { retryLimit: 5, expireInSeconds: 3600 },
  handler: ({ sendId }, platform) => dispatch(platform, sendId),
});

/** Scheduled sends whose time has come go out through the same path as the others. */
export const startDueSends = (platform: TPlatform) =>
  platform.db.transaction().execute(async (trx) => {
    const due = await queueDueScheduledSends(trx);
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
  const stalled = await findStalledSendIds(platform.db, platform.presence.ownKeys());
  for (const id of stalled) {
    await platform.queue.enqueue(dispatchSendJob, { sendId: id }, { singletonKey: `watch-${id}` });
  }
  return stalled.length;
};

/** The path a send's messages go through, as its delivery events name it. */
const eventSourceOfSend = async (platform: TPlatform, sendId: number): Promise<'smtp' | 'mailgun'> => {
  const send = await findSend(platform.db, sendId);
  const account = send?.account_id ? await findAccountRow(platform.db, send.user_id, send.account_id) : undefined;
  return account?.provider === 'mailgun' ? 'mailgun' : 'smtp';
};

/** How often a worker looks for claims of processes that died (R28: back within seconds). */
const ABANDONED_WATCH_MS = 3000;
/**
 * How long claims that look abandoned by presence must stay so before they are taken back:
 * a living process whose session was terminated takes its lock again within moments
 * (`presence.ts`), and its claims, with the answers it holds, stay its own (R38).
 */
const PRESENCE_CONFIRM_MS = 2000;

/**
 * Claims of a process that is gone, taken over within seconds: the sends holding them are
 * reaped (unstarted recipients back to pending, started ones `unknown`) and dispatched.
 * One cheap query when nothing died: claims in flight are a few hundred rows at most.
 * Answers how many sends had claims taken back.
 */
export const recoverAbandonedClaims = async (
  platform: TPlatform,
  { confirmMs = PRESENCE_CONFIRM_MS }: { confirmMs?: number } = {},
) => {
  const ownKeys = platform.presence.ownKeys();
  const abandoned = await findSendsWithAbandonedClaims(platform.db, ownKeys);
  if (abandoned.length === 0) return 0;
  // Looked at again after the wait, in the reaper's own statement: only what is still abandoned goes.
  await new Promise((resolve) => setTimeout(resolve, confirmMs));
  let recovered = 0;
  for (const sendId of abandoned) {
    const { pending, unknown } = await reapAbandonedClaims(
      platform.db,
      sendId,
      await eventSourceOfSend(platform, sendId),
      ownKeys,
    );
    if (pending + unknown === 0) continue;
    recovered += 1;
    if (pending > 0) await platform.queue.enqueue(dispatchSendJob, { sendId }, { singletonKey: `recover-${sendId}` });
    await publishProgress(platform, sendId, { force: true });
  }
  return recovered;
};

/**
 * A worker process's watch over sending: at start, every send left behind by processes
 * that died (their jobs may still look active in the queue) is taken up again at once;
 * then abandoned claims are looked for every few seconds. The minute's tick does the rest.
 */
export const watchSending = (platform: TPlatform) => {
  // Sends with recipients to claim first: the dead process's claims wait for their confirmation.
  const look = () =>
    resumeStalledSends(platform)
      .then(() => recoverAbandonedClaims(platform))
      .catch((error: unknown) => platform.log.warn({ err: error }, 'looking for abandoned sends failed'));
  void look();
  let isLooking = false;
  const timer = setInterval(() => {
    if (isLooking || platform.stopping.aborted) return;
    isLooking = true;
    recoverAbandonedClaims(platform)
      .catch((error: unknown) => {
        // A look cut short by this process's own stop (its pool closing) is no news.
        if (!platform.stopping.aborted) platform.log.warn({ err: error }, 'looking for abandoned claims failed');
      })
      .finally(() => {
        isLooking = false;
      });
  }, ABANDONED_WATCH_MS);
  timer.unref();
  return () => clearInterval(timer);
};

export const sendingTickJob = defineScheduledJob({
  name: 'sending.tick',
  cron: '* * * * *',
  handler: async (platform) => {
    await startDueSends(platform);
    await resumeStalledSends(platform);
  },
});
