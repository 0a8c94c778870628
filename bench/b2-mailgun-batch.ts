/**
 * B2: a send through a Mailgun account to a local Mailgun-compatible endpoint (the
 * contract fake from the tests): recipients prepared (merge fields, tracking, variables)
 * and handed over per second, 1,000 per call.
 */
import { sql } from 'kysely';
import pg from 'pg';
import { pino } from 'pino';
import { sealSecret } from '../packages/server/src/modules/accounts/secrets';
import { createUser } from '../packages/server/src/modules/auth/auth.service';
import { dispatch, snapshotSend } from '../packages/server/src/modules/sending/dispatch';
import { createSend } from '../packages/server/src/modules/sending/sending.service';
import { openPlatform } from '../packages/server/src/platform/bootstrap';
import { loadConfig } from '../packages/server/src/platform/config';
import { startTestCluster } from '../packages/server/test/cluster';
import { startMailgunFake } from '../packages/server/test/mailgun-fake';
import { median, type TFigure } from './figures';

const KEY = 'key-bench-0123456789abcdef0123456789';

type TSetup = { recipients: number; runs: number };

/** One send of `recipients` per run through the Mailgun path; its rates. */
const measureBatchSends = async ({ recipients: RECIPIENTS, runs: RUNS }: TSetup) => {
  const mailgun = await startMailgunFake({
    key: KEY,
    domains: [{ name: 'mg.bench.test', region: 'us' }],
    keepMessages: false,
  });
  const cluster = await startTestCluster();
  const admin = new pg.Client({ connectionString: cluster.adminUrl });
  await admin.connect();
  await admin.query('create database sendwell_bench_batch');
  await admin.end();
  const config = loadConfig(
    {
      DATABASE_URL: cluster.adminUrl.replace(/\/[^/]*$/, '/sendwell_bench_batch'),
      SECRET_KEY: 'bench-secret-key-that-is-long-enough-0123456789',
      LOG_LEVEL: 'silent',
      DATA_DIR: '/tmp/sendwell-bench-data',
      WEB_DIST_DIR: '/nonexistent',
      TEST_INBOX: 'false',
      MAILGUN_US_URL: mailgun.urls.us,
      MAILGUN_EU_URL: mailgun.urls.eu,
    },
    [],
  );
  const opened = await openPlatform(config, pino({ level: 'silent' }));
  const { platform } = opened;
  try {
    const user = await createUser(platform, { email: 'bench@example.com', name: 'Bench', password: 'secret123' });
    const { id: accountId } = await platform.db
      .insertInto('sending_accounts')
      .values({ user_id: user.id, name: 'Mailgun', provider: 'mailgun', domain: 'mg.bench.test', region: 'us' })
      .returning('id')
      .executeTakeFirstOrThrow();
    await platform.db
      .updateTable('sending_accounts')
      .set({ api_key_encrypted: sealSecret(platform, accountId, 'api_key', KEY) })
      .where('id', '=', accountId)
      .execute();
    const html = `<html><body><h1>Hello {{name::friend}}</h1><p>${'Some news. '.repeat(60)}</p><p><a href="https://example.com/a">A</a> <a href="https://example.com/b">B</a></p></body></html>`;
    const dispatchRates: number[] = [];
    const totalRates: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const { id: listId } = await platform.db
        .insertInto('mailing_lists')
        .values({
          user_id: user.id,
          account_id: accountId,
          alias: `l${run}`,
          domain: 'mg.bench.test',
          address: `l${run}@mg.bench.test`,
          name: `L${run}`,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await sql`insert into list_members (user_id, list_id, account_id, email, fullname, fields)
        select ${user.id}, ${listId}, ${accountId}, 'r' || n || '.' || ${run} || '@example.com', 'Reader ' || n,
               jsonb_build_object('city', 'City ' || n)
          from generate_series(1, ${RECIPIENTS}) n`.execute(platform.db);
      const sendId = await createSend(platform, user.id, {
        accountId,
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
