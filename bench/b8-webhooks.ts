/**
 * B8: Mailgun webhook ingest: signed events (HMAC check, replay table, event-id table,
 * the recipient's counters) posted through the HTTP route (app.inject) 32 at a time, from
 * one address as Mailgun's are. For the reader of the figure, the ingest without the route
 * (`receiveMailgunWebhook`) is also measured on its own.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import Fastify from 'fastify';
import { sql } from 'kysely';
import { pino } from 'pino';
import { buildApp } from '../packages/server/src/app';
import {
  applyPendingEvents,
  RECIPIENT_VARIABLE,
  receiveMailgunWebhook,
} from '../packages/server/src/modules/sending/mailgun-webhooks';
import { openPlatform } from '../packages/server/src/platform/bootstrap';
import { loadConfig } from '../packages/server/src/platform/config';
import { startRealtimeHub } from '../packages/server/src/platform/realtime';
import { median, type TFigure } from './figures';
import { benchEnvironment, seedAccount } from './seed';

const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 10_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const CONCURRENCY = 32;
const KEY = 'bench-webhook-signing-key-0123456789';

/** Calls `one` for indexes 0 … EVENTS-1, CONCURRENCY at a time; calls per second. */
const ratePerSecond = async (one: (index: number) => Promise<unknown>) => {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < EVENTS) await one(next++);
    }),
  );
  return EVENTS / ((performance.now() - started) / 1000);
};

export const runB8 = async (): Promise<TFigure> => {
  const { env, cluster } = await benchEnvironment('sendwell_bench_webhooks', {
    LOG_LEVEL: 'silent',
    DB_POOL_SIZE: '20',
  });
  const config = loadConfig(env, []);
  const opened = await openPlatform(config, pino({ level: 'silent' }));
  const { platform } = opened;
  const hub = await startRealtimeHub({
    url: config.databaseUrl!,
    log: platform.log,
    onSessionEnded: platform.sessionCache.evict,
    onListeningChange: platform.sessionCache.setTrusted,
  });
  const app = await buildApp({ platform, hub });
  await app.ready();
  try {
    const { userId, accountId } = await seedAccount(platform, {
      values: { name: 'Mailgun', provider: 'mailgun', domain: 'mg.bench.test', region: 'us' },
      secret: { column: 'webhook_key', value: KEY },
    });
    const { id: sendId } = await platform.db
      .insertInto('sends')
      .values({
        user_id: userId,
        account_id: accountId,
        status: 'finished',
        from_address: 'n@mg.bench.test',
        subject: 'B8',
        html: '-',
        list_ids: [],
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await sql`insert into send_recipients (send_id, user_id, email, token, status)
      select ${sendId}, ${userId}, 'r' || n || '@example.com', md5('r' || n), 'sent' from generate_series(1, ${EVENTS}) n`.execute(
      platform.db,
    );
    const kinds = ['delivered', 'opened', 'clicked'];
    /** EVENTS signed events of one kind, one per recipient, with ids that start with `prefix`. */
    const signedEvents = (prefix: string, kind: string) =>
      Array.from({ length: EVENTS }, (_, index) => {
        const timestamp = String(Math.floor(Date.now() / 1000));
        const token = randomBytes(25).toString('hex');
        return {
          signature: {
            timestamp,
            token,
            signature: createHmac('sha256', KEY).update(`${timestamp}${token}`).digest('hex'),
          },
          'event-data': {
            id: `${prefix}-${index}`,
            event: kind,
            recipient: `r${index + 1}@example.com`,
            // The recipients' tokens are md5('r' || n), computed the same way here.
            'user-variables': {
              [RECIPIENT_VARIABLE]: createHash('md5')
                .update(`r${index + 1}`)
                .digest('hex'),
            },
          },
        };
      });
    const rates: number[] = [];
    const applyRates: number[] = [];
    const ingestRates: number[] = [];
    // The framework's own ceiling on this machine: a bare Fastify route that takes the same
    // signed JSON and answers at once (no HMAC, no database), posted the same way.
    const bare = Fastify();
    bare.post('/hook', async () => ({ status: true, message: 'ok' }));
    await bare.ready();
    const bareRates: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const bodies = signedEvents(`${run}`, kinds[run % kinds.length]!);
      let failures = 0;
      rates.push(
        await ratePerSecond(async (index) => {
          const response = await app.inject({
            method: 'POST',
            url: `/api/webhooks/mailgun/${accountId}`,
            payload: bodies[index]!,
          });
          if (response.statusCode !== 200) failures += 1;
        }),
      );
      if (failures > 0) throw new Error(`${failures} webhook requests failed`);
      const applyStarted = performance.now();
      const applied = await applyPendingEvents(platform);
      applyRates.push(applied / ((performance.now() - applyStarted) / 1000));

      // The parts: the same ingest without the route (these events repeat the run's kind,
      // so applying them moves no counter).
      const direct = signedEvents(`direct-${run}`, kinds[run % kinds.length]!);
      ingestRates.push(
        await ratePerSecond(async (index) => {
          const answer = await receiveMailgunWebhook(platform, accountId, direct[index]!);
          if (answer.status !== 200) failures += 1;
        }),
      );
      if (failures > 0) throw new Error(`${failures} webhook events failed`);
      await applyPendingEvents(platform);
      bareRates.push(
        await ratePerSecond(async (index) => {
          const response = await bare.inject({ method: 'POST', url: '/hook', payload: direct[index]! });
          if (response.statusCode !== 200) failures += 1;
        }),
      );
    }
    await bare.close();
    const counts = await platform.db.selectFrom('sends').selectAll().where('id', '=', sendId).executeTakeFirstOrThrow();
    const rate = median(rates);
    const applyRate = median(applyRates);
    return {
      id: 'B8',
      title: `Mailgun webhook ingest through the HTTP route (HMAC, replay check, event stored once), ${EVENTS.toLocaleString('en-US')} events, ${CONCURRENCY} in flight; then the batch apply`,
      anchor: 'none published',
      goal: '≥ 10,000 events/s accepted (first goal 2,000, met at 5,063)',
      measured: `${Math.round(rate).toLocaleString('en-US')} events/s accepted (median of ${RUNS}); applied in batches at ${Math.round(applyRate).toLocaleString('en-US')} events/s; counters after the runs: delivered ${counts.delivered_count}, opened ${counts.opened_count}, clicked ${counts.clicked_count}. The ingest alone, without the route: ${Math.round(median(ingestRates)).toLocaleString('en-US')} events/s. Bare Fastify taking the same posts and answering at once (no HMAC, no database): ${Math.round(median(bareRates)).toLocaleString('en-US')}/s, ratio ${(rate / median(bareRates)).toFixed(2)}`,
      isGoalMet: rate >= 10_000 && applyRate >= 10_000,
      runs: {
        accepted: rates,
        applied: applyRates,
        ingestWithoutRoute: ingestRates,
        bareFastify: bareRates,
      },
    };
  } finally {
    await app.close();
    await hub.close();
    await opened.close();
    await cluster.stop();
  }
};
