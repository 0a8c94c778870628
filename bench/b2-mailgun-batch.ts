/**
 * B2: a send through a Mailgun account to a local Mailgun-compatible endpoint (the
 * contract fake from the tests): recipients prepared (merge fields, tracking, variables)
 * and handed over per second, 1,000 per call.
 */
import { pino } from 'pino';
import { dispatch, snapshotSend } from '../packages/server/src/modules/sending/dispatch';
import { createSend } from '../packages/server/src/modules/sending/sending.service';
import { openPlatform } from '../packages/server/src/platform/bootstrap';
import { loadConfig } from '../packages/server/src/platform/config';
import { startMailgunFake } from '../packages/server/test/mailgun-fake';
import { median, type TFigure } from './figures';
import { benchEnvironment, seedAccount, seedList } from './seed';

const KEY = 'key-bench-0123456789abcdef0123456789';

type TSetup = { recipients: number; runs: number };

/** One send of `recipients` per run through the Mailgun path; its rates. */
const measureBatchSends = async ({ recipients: RECIPIENTS, runs: RUNS }: TSetup) => {
  const mailgun = await startMailgunFake({
    key: KEY,
    domains: [{ name: 'mg.bench.test', region: 'us' }],
    keepMessages: false,
  });
  const { env, cluster } = await benchEnvironment('sendwell_bench_batch', {
    LOG_LEVEL: 'silent',
    MAILGUN_US_URL: mailgun.urls.us,
    MAILGUN_EU_URL: mailgun.urls.eu,
  });
  const opened = await openPlatform(loadConfig(env, []), pino({ level: 'silent' }));
  const { platform } = opened;
  try {
    const owner = await seedAccount(platform, {
      values: { name: 'Mailgun', provider: 'mailgun', domain: 'mg.bench.test', region: 'us' },
      secret: { column: 'api_key', value: KEY },
    });
    const html = `<html><body><h1>Hello {{name::friend}}</h1><p>${'Some news. '.repeat(60)}</p><p><a href="https://example.com/a">A</a> <a href="https://example.com/b">B</a></p></body></html>`;
    const dispatchRates: number[] = [];
    const totalRates: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const listId = await seedList(platform, owner, {
        run,
        domain: 'mg.bench.test',
        size: RECIPIENTS,
        withCity: true,
      });
      const sendId = await createSend(platform, owner.userId, {
        accountId: owner.accountId,
        fromName: 'Bench',
        fromAddress: 'news@mg.bench.test',
        subject: 'Hello {{name}} in {{city::town}}',
        html,
        listIds: [listId],
      });
      const acceptedBefore = mailgun.accepted.recipients;
      const started = performance.now();
      await snapshotSend(platform, sendId);
      const dispatchStarted = performance.now();
      await dispatch(platform, sendId);
      const ended = performance.now();
      const handedOver = mailgun.accepted.recipients - acceptedBefore;
      if (handedOver !== RECIPIENTS) throw new Error(`Mailgun got ${handedOver} of ${RECIPIENTS}`);
      dispatchRates.push(RECIPIENTS / ((ended - dispatchStarted) / 1000));
      totalRates.push(RECIPIENTS / ((ended - started) / 1000));
    }
    return { dispatchRates, totalRates };
  } finally {
    await opened.close();
    await cluster.stop();
    await mailgun.close();
  }
};

export const runB2 = async (): Promise<TFigure> => {
  const RECIPIENTS = Number(process.env.BENCH_BATCH_RECIPIENTS ?? 100_000);
  const RUNS = Number(process.env.BENCH_RUNS ?? 3);
  const { dispatchRates, totalRates } = await measureBatchSends({ recipients: RECIPIENTS, runs: RUNS });
  const rate = median(dispatchRates);
  return {
    id: 'B2',
    title: `Mailgun batch sending of ${RECIPIENTS.toLocaleString('en-US')} recipients to a local Mailgun-compatible endpoint (1,000 per call, merge fields, tracking, recipient variables)`,
    anchor: 'Ghost: 1,000 recipients per call, 2 calls in flight; batch prep ~4.2k recipients/s',
    goal: '≥ 20,000 recipients/s prepared and handed over',
    measured: `${Math.round(rate).toLocaleString('en-US')} recipients/s prepared, handed over and checkpointed (median of ${RUNS}); ${Math.round(median(totalRates)).toLocaleString('en-US')}/s including the audience snapshot`,
    isGoalMet: rate >= 20_000,
    runs: { dispatch: dispatchRates, withSnapshot: totalRates },
  };
};
