import { abPartLetter, chooseAbWinner, figuresOfSend } from '@sendwell/contracts';
import { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import { defineJob } from '../../platform/queue';
import {
  cancelHeldParts,
  findBounceSplit,
  findHandoverOf,
  findSplitParts,
  publishSendProgress,
  releaseHeldSend,
} from '../delivery/delivery.service';
import { notifyUser } from '../notifications/notifications.service';
import { endAbTest, lockAbTest, setDecideAt } from './ab-tests.repository';

/** How long a decision waits when the test's snapshot has not been taken yet (a queue behind). */
const SNAPSHOT_WAIT_MS = 5_000;
/** How often, at most, a decision looks again while the test parts are still being handed over (a short wait looks as often as it is long). */
const HANDOVER_LOOK_MS = 30_000;

/**
 * The decision of an A/B test (issue 31 §4), in one transaction: the test locked and acted on
 * only while `testing`; once its parts are all handed over and the wait has passed since (else
 * asked again: at that time, or within 30 s while messages wait); each subject's figures (the engine's counters, `figuresOfSend`); the
 * winner by `chooseAbWinner` (ties and no data have their rule there); the held rest let go
 * with the winning subject (its dispatch queued in this transaction); the test marked decided.
 * Run twice, the second finds it decided; a crash before the commit leaves it testing, and the
 * job's retry decides it. The rest goes through the one engine, exactly once per recipient.
 */
export const decideAbTest = async (platform: TPlatform, abTestId: number) => {
  const outcome = await platform.db.transaction().execute(async (trx) => {
    const test = await lockAbTest(trx, abTestId);
    if (test?.status !== 'testing') return null;
    const parts = await findSplitParts(trx, test.user_id, test.lead_send_id);
    const lead = parts.find((part) => part.split_part === 1);
    const rest = parts.find((part) => part.split_part === 0);
    if (lead && ['queued', 'snapshotting'].includes(lead.status)) {
      // The audience is not dealt out yet: nothing to judge. Asked again shortly.
      await platform.queue.enqueue(
        decideAbTestJob,
        { abTestId },
        { executor: trx, startAfter: new Date(Date.now() + SNAPSHOT_WAIT_MS) },
      );
      return null;
    }
    if (!lead || !rest || rest.status !== 'held') {
      // Cancelled before the decision: the rest (or the whole send, before its snapshot).
      await cancelHeldParts(trx, test.lead_send_id);
      await endAbTest(trx, abTestId, {
        status: 'cancelled',
        decision: 'Cancelled before the winner was chosen: the rest of the recipients got nothing.',
      });
      return null;
    }
    const tested = parts.filter((part) => (part.split_part ?? 0) > 0);
    // The wait starts once every test message is handed over (a capped account's parts may
    // take hours or days): judged before, the rates would be of messages not yet sent.
    const handover = await findHandoverOf(
      trx,
      tested.map((part) => part.id),
    );
    const dueAt = handover.isHandedOver
      ? new Date((handover.lastAt ?? new Date()).getTime() + test.wait_minutes * 60_000)
      : null;
    if (dueAt === null || dueAt.getTime() > Date.now()) {
      if (dueAt) await setDecideAt(trx, abTestId, dueAt);
      await platform.queue.enqueue(
        decideAbTestJob,
        { abTestId },
        {
          executor: trx,
          startAfter:
            dueAt ?? new Date(Date.now() + Math.min(HANDOVER_LOOK_MS, Math.max(1_000, test.wait_minutes * 60_000))),
        },
      );
      return null;
    }
    const variants = await Promise.all(
      tested.map(async (part) => ({
        part: part.split_part!,
        figures: figuresOfSend(part, await findBounceSplit(trx, part.id)),
      })),
    );
    const decision = chooseAbWinner(variants, test.metric);
    const winner = tested.find((part) => part.split_part === decision.winnerPart) ?? lead;
    await releaseHeldSend(trx, platform, rest.id, winner.subject);
    await endAbTest(trx, abTestId, { status: 'decided', winnerPart: decision.winnerPart, decision: decision.reason });
    await notifyUser(
      platform,
      {
        userId: test.user_id,
        title: `A/B test: subject ${abPartLetter(decision.winnerPart)} won, “${winner.subject}”`,
        body: `${decision.reason} It now goes to the other ${rest.recipients_count.toLocaleString('en-US')} recipients.`,
        link: rest.account_id === null ? '/history' : `/history/details/${rest.account_id}/${rest.id}`,
      },
      trx,
    );
    return { restId: rest.id };
  });
  if (outcome) await publishSendProgress(platform, outcome.restId);
};

/**
 * Queued with the test for its time (`decide_at`); safe to run twice or after a crash (above).
 */
export const decideAbTestJob = defineJob({
  name: 'ab-tests.decide',
  schema: z.object({ abTestId: z.number().int().positive() }),
  queue: { retryLimit: 10 },
  handler: ({ abTestId }, platform) => decideAbTest(platform, abTestId),
});
