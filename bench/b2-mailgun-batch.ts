/**
 * B2: a send through a Mailgun account to a local Mailgun-compatible endpoint (the
 * contract fake from the tests, in a process of its own since 2026-11-25, as Mailgun is):
 * recipients prepared (merge fields, tracking, variables) and handed over per second,
 * 1,000 per call.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { pino } from 'pino';
import { claimRecipients, endClaim } from '../packages/server/src/modules/delivery/claims';
import { dispatch, snapshotSend } from '../packages/server/src/modules/delivery/delivery.jobs';
import { BATCH_CALLS_IN_FLIGHT } from '../packages/server/src/modules/delivery/dispatch';
import { addCounts, settleBatch } from '../packages/server/src/modules/delivery/outcomes';
import { openPlatform } from '../packages/server/src/platform/bootstrap';
import { loadConfig } from '../packages/server/src/platform/config';
import { MAILGUN_BATCH_SIZE } from '../packages/server/src/providers/mailgun';
import { countCpu, cpuBudgetAt, describeCpu, medianCpu } from './cpu';
import { median, type TFigure } from './figures';
import { benchEnvironment, createMailgunSend, seedMailgunAccount, seedMailgunList } from './seed';
import { startMailgunProcess } from './servers';

type TSetup = { recipients: number; runs: number };

/** One send of `recipients` per run through the Mailgun path; its rates. */
const measureBatchSends = async ({ recipients: RECIPIENTS, runs: RUNS }: TSetup) => {
  const mailgun = await startMailgunProcess();
  const { env, cluster } = await benchEnvironment('sendwell_bench_batch', {
    LOG_LEVEL: 'silent',
    MAILGUN_US_URL: mailgun.urls.us,
    MAILGUN_EU_URL: mailgun.urls.eu,
  });
  const opened = await openPlatform(loadConfig(env, []), pino({ level: 'silent' }));
  const { platform } = opened;
  try {
    const owner = await seedMailgunAccount(platform);
    const dispatchRates: number[] = [];
    const totalRates: number[] = [];
    const cpuRuns: Record<string, number>[] = [];
    for (let run = 0; run < RUNS; run++) {
      const listId = await seedMailgunList(platform, owner, run, RECIPIENTS);
      const sendId = await createMailgunSend(platform, owner, listId);
      const acceptedBefore = await mailgun.acceptedRecipients();
      const started = performance.now();
      await snapshotSend(platform, sendId);
      const cpu = countCpu('engine', { 'Mailgun fake': mailgun.pid });
      const dispatchStarted = performance.now();
      await dispatch(platform, sendId);
      const ended = performance.now();
      cpuRuns.push(cpu.perItem(RECIPIENTS));
      const handedOver = (await mailgun.acceptedRecipients()) - acceptedBefore;
      if (handedOver !== RECIPIENTS) throw new Error(`Mailgun got ${handedOver} of ${RECIPIENTS}`);
      dispatchRates.push(RECIPIENTS / ((ended - dispatchStarted) / 1000));
      totalRates.push(RECIPIENTS / ((ended - started) / 1000));
    }
    // The database's part alone: the engine's own statements for the same recipients (the
    // claim that is also the handover mark, settle with its delivery events, the claim's
    // end, counters), 1,000 at a time and as many side by side as dispatch keeps calls in
    // flight, with no composing and no HTTP call. It says how far the statements every
    // exactly-once send must make let this machine go. With `claimOnly`, the claims alone:
    // the one write per recipient that must be committed before the call.
    let seeded = RUNS;
    const statementsAlone = async (claimOnly: boolean) => {
      const listId = await seedMailgunList(platform, owner, seeded++, RECIPIENTS);
      const sendId = await createMailgunSend(platform, owner, listId);
      await snapshotSend(platform, sendId);
      const context = { sendId, userId: owner.userId, accountId: owner.accountId, source: 'mailgun' } as const;
      const workerKey = await platform.presence.key();
      const started = performance.now();
      let done = 0;
      await Promise.all(
        Array.from({ length: BATCH_CALLS_IN_FLIGHT }, async () => {
          for (;;) {
            const leaseToken = randomUUID();
            const claimed = await claimRecipients(platform.db, {
              sendId,
              leaseToken,
              leaseMs: platform.config.sendLeaseMs,
              workerKey,
              ownKeys: [workerKey],
              limit: MAILGUN_BATCH_SIZE,
              handOver: true,
              source: 'mailgun',
            });
            if (claimed.length === 0) return;
            if (claimOnly) {
              done += claimed.length;
              continue;
            }
            const outcomes = await settleBatch(platform.db, context, leaseToken, claimed, {
              to: '',
              accepted: true,
              providerId: 'floor',
            });
            await endClaim(platform.checkpointDb, context, leaseToken);
            await addCounts(platform.db, sendId, outcomes);
            done += outcomes.length;
          }
        }),
      );
      if (done !== RECIPIENTS) throw new Error(`${done} of ${RECIPIENTS} recipients`);
      return RECIPIENTS / ((performance.now() - started) / 1000);
    };
    const floorRates: number[] = [];
    const claimRates: number[] = [];
    for (let run = 0; run < RUNS; run++) floorRates.push(await statementsAlone(false));
    for (let run = 0; run < RUNS; run++) claimRates.push(await statementsAlone(true));
    return { dispatchRates, totalRates, floorRates, claimRates, cpu: medianCpu(cpuRuns) };
  } finally {
    await opened.close();
    await cluster.stop();
    await mailgun.close();
  }
};

export const runB2 = async (): Promise<TFigure> => {
  const RECIPIENTS = Number(process.env.BENCH_BATCH_RECIPIENTS ?? 100_000);
  const RUNS = Number(process.env.BENCH_RUNS ?? 3);
  const { dispatchRates, totalRates, floorRates, claimRates, cpu } = await measureBatchSends({
    recipients: RECIPIENTS,
    runs: RUNS,
  });
  const rate = median(dispatchRates);
  const floorRate = median(floorRates);
  return {
    id: 'B2',
    title: `Mailgun batch sending of ${RECIPIENTS.toLocaleString('en-US')} recipients to a local Mailgun-compatible endpoint in a process of its own (1,000 per call, merge fields, tracking, recipient variables)`,
    anchor: 'Ghost: 1,000 recipients per call, 2 calls in flight; batch prep ~4.2k recipients/s',
    goal: '≥ 20,000 recipients/s prepared and handed over, or 0.9 of the statements alone in the same run, whichever is lower',
    measured: `${Math.round(rate).toLocaleString('en-US')} recipients/s prepared, handed over and checkpointed (median of ${RUNS}); ${Math.round(median(totalRates)).toLocaleString('en-US')}/s including the audience snapshot. The engine's statements alone for the same recipients (claim with its handover mark, settle with events, the claim's end, counters; no composing, no call) ${Math.round(floorRate).toLocaleString('en-US')}/s: ratio ${(rate / floorRate).toFixed(2)}. The claims alone (the one write per recipient committed before the call) ${Math.round(median(claimRates)).toLocaleString('en-US')}/s. CPU µs per recipient during dispatch: ${describeCpu(cpu)}; at 20,000/s this machine's ${os.cpus().length} cores have ${cpuBudgetAt(20_000)} µs per recipient for all of them together`,
    isGoalMet: rate >= Math.min(20_000, 0.9 * floorRate),
    runs: {
      dispatch: dispatchRates,
      withSnapshot: totalRates,
      statementsAlone: floorRates,
      claimsAlone: claimRates,
      cpuMicrosPerRecipient: cpu,
    },
  };
};
