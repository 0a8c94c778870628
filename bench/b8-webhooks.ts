/**
 * B8: Mailgun webhook ingest the way Mailgun reaches it: signed events (HMAC check, replay
 * table, event-id table, the recipient's counters) posted over HTTP to the built server
 * (`dist/main.js` as `npm start` runs it, SENDWELL_ROLE=web, a process of its own) on 32
 * keep-alive connections by autocannon, a fresh signature per event. The reference is bare
 * Fastify in a process of its own taking the same posts the same way and answering at once.
 * For the reader of the figure, the parts are also measured in this process: the route
 * through `app.inject` (the harness before 2026-11-25) and the ingest without the route
 * (`receiveMailgunWebhook`).
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { sql } from 'kysely';
import pg from 'pg';
import { pino } from 'pino';
import { buildApp } from '../packages/server/src/app';
import { RECIPIENT_VARIABLE } from '../packages/server/src/modules/delivery/message';
import { applyPendingEvents } from '../packages/server/src/modules/delivery-events/mailgun-events';
import { receiveMailgunWebhook } from '../packages/server/src/modules/delivery-events/mailgun-webhooks';
import { openPlatform } from '../packages/server/src/platform/bootstrap';
import { loadConfig } from '../packages/server/src/platform/config';
import { startRealtimeHub } from '../packages/server/src/platform/realtime';
import { freePort } from '../packages/server/test/cluster';
import { startServerProcess, type TServerProcess } from '../packages/server/test/processes';
import { countCpu, cpuBudgetAt, describeCpu, medianCpu } from './cpu';
import { median, type TFigure } from './figures';
import { benchEnvironment, seedAccount } from './seed';
import { buildServer, SERVER_ENTRIES, START_FLAGS, startBareFastify, startBareFastifyPg } from './servers';

const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 10_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const CONCURRENCY = 32;
const KEY = 'bench-webhook-signing-key-0123456789';

/**
 * How long this disk takes to make a write durable (fdatasync of 8 kB, as a WAL flush
 * does), in ms, median of 200, in the temporary directory the bench's PostgreSQL keeps its
 * data in. Each post waits for one: with CONCURRENCY posts in flight, CONCURRENCY / this
 * is the most events a second any server that answers after the commit can take.
 */
const fsyncMilliseconds = () => {
  const file = path.join(os.tmpdir(), `sendwell-bench-fsync-${process.pid}`);
  const fd = fs.openSync(file, 'w');
  const samples: number[] = [];
  try {
    for (let index = 0; index < 200; index++) {
      fs.writeSync(fd, Buffer.alloc(8192, index), 0, 8192, (index % 16) * 8192);
      const started = performance.now();
      fs.fdatasyncSync(fd);
      samples.push(performance.now() - started);
    }
  } finally {
    fs.closeSync(fd);
    fs.rmSync(file, { force: true });
  }
  return median(samples);
};

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

/**
 * Posts EVENTS of `bodies` (JSON text, each sent once) to `url` over CONCURRENCY keep-alive
 * connections; posts per second from the start to the last answer (autocannon itself ends
 * on its next one-second sample, which would round a 2-second run up to 3). autocannon
 * builds each connection's first request before it connects, so `bodies` holds a spare one
 * per connection.
 */
const postOverHttp = async (url: string, bodies: string[]) => {
  let next = 0;
  const started = performance.now();
  let lastAnswer = started;
  // Without a callback autocannon returns its tracker made thenable (lib/init.js); the
  // types know only the promise.
  const run = autocannon({
    url,
    method: 'POST',
    connections: CONCURRENCY,
    amount: EVENTS,
    headers: { 'content-type': 'application/json' },
    requests: [{ setupRequest: (request) => ({ ...request, body: bodies[next++] }) }],
  }) as unknown as autocannon.Instance & Promise<autocannon.Result>;
  run.on('response', () => {
    lastAnswer = performance.now();
  });
  const result = await run;
  const failures = result.errors + result.non2xx + result.timeouts;
  if (failures > 0 || result.requests.total < EVENTS) {
    throw new Error(`${url}: ${failures} of ${result.requests.total} posts failed`);
  }
  return EVENTS / ((lastAnswer - started) / 1000);
};

export const runB8 = async (): Promise<TFigure> => {
  const loadBefore = os.loadavg()[0]!.toFixed(1);
  buildServer();
  const { env, cluster } = await benchEnvironment('sendwell_bench_webhooks', { DB_POOL_SIZE: '20' });
  const config = loadConfig({ ...env, LOG_LEVEL: 'silent', SENDWELL_ROLE: 'web' }, []);
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
  const processes: TServerProcess[] = [];
  const onClose: (() => Promise<void>)[] = [];
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

    // The server as deployed, and bare Fastify, each in a process of its own.
    const port = await freePort();
    const server = startServerProcess(
      {
        ...env,
        PORT: String(port),
        HOST: '127.0.0.1',
        SENDWELL_ROLE: 'web',
        // npm start's default; the webhook route itself logs at warn (recipient.routes.ts).
        LOG_LEVEL: 'info',
        NODE_OPTIONS: START_FLAGS,
      },
      [],
      SERVER_ENTRIES.built,
      // BENCH_CPU_PROF=<dir>: the server writes a V8 CPU profile there when it stops.
      { nodeFlags: process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [] },
    );
    processes.push(server);
    await server.waitForOutput('Sendwell is running at', 60_000);
    const barePort = await freePort();
    const bare = await startBareFastify(barePort);
    processes.push(bare);
    const barePgPort = await freePort();
    const barePg = await startBareFastifyPg(barePgPort, {
      databaseUrl: config.databaseUrl!,
      webhookKey: KEY,
      accountId,
    });
    processes.push(barePg);
    const webhookUrl = `http://127.0.0.1:${port}/api/webhooks/mailgun/${accountId}`;
    const bareUrl = `http://127.0.0.1:${barePort}/hook`;
    const barePgUrl = `http://127.0.0.1:${barePgPort}/hook`;

    const kinds = ['delivered', 'opened', 'clicked'];
    /**
     * `count` signed events of one kind, one per recipient in turn, with ids that start with
     * `prefix`. Signed now: Mailgun's signatures expire.
     */
    const signedEvents = (prefix: string, kind: string, count = EVENTS) =>
      Array.from({ length: count }, (_, index) => {
        const timestamp = String(Math.floor(Date.now() / 1000));
        const token = randomBytes(25).toString('hex');
        const recipient = (index % EVENTS) + 1;
        return {
          signature: {
            timestamp,
            token,
            signature: createHmac('sha256', KEY).update(`${timestamp}${token}`).digest('hex'),
          },
          'event-data': {
            id: `${prefix}-${index}`,
            event: kind,
            recipient: `r${recipient}@example.com`,
            // The recipients' tokens are md5('r' || n), computed the same way here.
            'user-variables': {
              [RECIPIENT_VARIABLE]: createHash('md5').update(`r${recipient}`).digest('hex'),
            },
          },
        };
      });
    const postsOf = (prefix: string, kind: string) =>
      signedEvents(prefix, kind, EVENTS + CONCURRENCY).map((event) => JSON.stringify(event));

    // Transactions committed in the database per event: each statement outside a
    // transaction is one, so without group commit it would be 1 (or more).
    const stats = new pg.Client({ connectionString: cluster.adminUrl });
    await stats.connect();
    const commits = async () => {
      // Backends report their counts about once a second once idle.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await stats.query('select pg_stat_clear_snapshot()');
      const { rows } = await stats.query(
        'select xact_commit + xact_rollback as count from pg_stat_database where datname = $1',
        ['sendwell_bench_webhooks'],
      );
      return Number(rows[0].count);
    };
    onClose.push(() => stats.end());

    // Warm-up (JIT, pools, plans), with events that move no counter the runs count.
    await postOverHttp(webhookUrl, postsOf('warm', 'delivered'));
    await applyPendingEvents(platform);
    await postOverHttp(bareUrl, postsOf('warm-bare', 'delivered'));
    await postOverHttp(barePgUrl, postsOf('warm-bare-pg', 'delivered'));

    const rates: number[] = [];
    const applyRates: number[] = [];
    const bareRates: number[] = [];
    const barePgRates: number[] = [];
    const barePgCpuRuns: Record<string, number>[] = [];
    const injectRates: number[] = [];
    const ingestRates: number[] = [];
    const commitsPerEvent: number[] = [];
    const serverCpuRuns: Record<string, number>[] = [];
    const bareCpuRuns: Record<string, number>[] = [];
    for (let run = 0; run < RUNS; run++) {
      const kind = kinds[run % kinds.length]!;
      const barePgCpu = countCpu('autocannon', { 'bare Fastify + pg': barePg.child.pid });
      barePgRates.push(await postOverHttp(barePgUrl, postsOf(`bare-pg-${run}`, kind)));
      barePgCpuRuns.push(barePgCpu.perItem(EVENTS));
      const posts = postsOf(`${run}`, kind);
      const committedBefore = await commits();
      const serverCpu = countCpu('autocannon', { 'Sendwell server': server.child.pid });
      rates.push(await postOverHttp(webhookUrl, posts));
      serverCpuRuns.push(serverCpu.perItem(EVENTS));
      commitsPerEvent.push(((await commits()) - committedBefore) / EVENTS);
      const applyStarted = performance.now();
      const applied = await applyPendingEvents(platform);
      applyRates.push(applied / ((performance.now() - applyStarted) / 1000));
      const bareCpu = countCpu('autocannon', { 'bare Fastify': bare.child.pid });
      bareRates.push(await postOverHttp(bareUrl, postsOf(`bare-${run}`, kind)));
      bareCpuRuns.push(bareCpu.perItem(EVENTS));

      // The parts, in this process (these events repeat the run's kind, so applying them
      // moves no counter): the route through inject, then the ingest without the route.
      let failures = 0;
      const injected = signedEvents(`inject-${run}`, kind);
      injectRates.push(
        await ratePerSecond(async (index) => {
          const response = await app.inject({
            method: 'POST',
            url: `/api/webhooks/mailgun/${accountId}`,
            payload: injected[index]!,
          });
          if (response.statusCode !== 200) failures += 1;
        }),
      );
      const direct = signedEvents(`direct-${run}`, kind);
      ingestRates.push(
        await ratePerSecond(async (index) => {
          const answer = await receiveMailgunWebhook(platform, accountId, direct[index]!);
          if (answer.status !== 200) failures += 1;
        }),
      );
      if (failures > 0) throw new Error(`${failures} webhook events failed`);
      await applyPendingEvents(platform);
      console.log(
        `  run ${run + 1}: ${Math.round(rates.at(-1)!)} events/s over HTTP (${commitsPerEvent.at(-1)!.toFixed(3)} commits an event); bare Fastify + pg ${Math.round(barePgRates.at(-1)!)}/s; bare Fastify ${Math.round(bareRates.at(-1)!)}/s; inject ${Math.round(injectRates.at(-1)!)}/s; ingest alone ${Math.round(ingestRates.at(-1)!)}/s`,
      );
    }
    const counts = await platform.db.selectFrom('sends').selectAll().where('id', '=', sendId).executeTakeFirstOrThrow();
    const fsyncMs = fsyncMilliseconds();
    const rate = median(rates);
    // Each run's own ratios (the bare servers right before and after it), so a burst of load
    // on the shared machine moves both sides of one ratio.
    const runRatios = rates.map((value, index) => value / bareRates[index]!);
    const ratio = median(runRatios);
    const pgRatios = rates.map((value, index) => value / barePgRates[index]!);
    const pgRatio = median(pgRatios);
    const applyRate = median(applyRates);
    const bareRate = median(bareRates);
    const perSecond = (value: number) => Math.round(value).toLocaleString('en-US');
    const serverCpu = medianCpu(serverCpuRuns);
    const bareCpu = medianCpu(bareCpuRuns);
    return {
      id: 'B8',
      title: `Mailgun webhook ingest over HTTP to the built server in its own process (HMAC, replay check, event stored once), ${EVENTS.toLocaleString('en-US')} events on ${CONCURRENCY} keep-alive connections (autocannon); then the batch apply`,
      anchor: 'none published',
      goal: '≥ 0.7 of bare Fastify + pg checking the same HMAC and storing the same events group-committed, in the same run; events committed before the answer (first goals 2,000/s, met at 5,063; 10,000/s; 0.6 of bare Fastify without a database)',
      measured: `${perSecond(rate)} events/s accepted (median of ${RUNS}), each answered after the commit that holds it, in ${median(commitsPerEvent).toFixed(3)} commits an event (group commit: ${Math.round(1 / median(commitsPerEvent))} events a transaction); applied in batches at ${perSecond(applyRate)} events/s; counters after the runs: delivered ${counts.delivered_count}, opened ${counts.opened_count}, clicked ${counts.clicked_count}. Bare Fastify + pg (the same HMAC check and the same statement, group-committed, answered after the commit): ${perSecond(median(barePgRates))}/s; ratio ${pgRatio.toFixed(2)} (the runs' ratios: ${pgRatios.map((value) => value.toFixed(2)).join(', ')}). Bare Fastify in its own process taking the same posts the same way and answering at once (no HMAC, no database): ${perSecond(bareRate)}/s; ratio ${ratio.toFixed(2)} (median of the runs' ratios: ${runRatios.map((value) => value.toFixed(2)).join(', ')}). In the bench's own process: the route through app.inject ${perSecond(median(injectRates))}/s, the ingest alone ${perSecond(median(ingestRates))}/s. CPU µs per event over HTTP: ${describeCpu(serverCpu)}; bare + pg: ${describeCpu(medianCpu(barePgCpuRuns))}; bare: ${describeCpu(bareCpu)}; at 10,000/s this machine's ${os.cpus().length} cores have ${cpuBudgetAt(10_000)} µs per event for all of them together. A commit waits for the disk: fdatasync of 8 kB takes ${fsyncMs.toFixed(1)} ms here (median of 200), so ${CONCURRENCY} posts in flight, each answered after its commit, can make at most ${perSecond(CONCURRENCY / (fsyncMs / 1000))} events/s however commits are shared (${(CONCURRENCY / (fsyncMs / 1000) / bareRate).toFixed(2)} of bare Fastify). Load average ${loadBefore} before, ${os.loadavg()[0]!.toFixed(1)} after`,
      isGoalMet: pgRatio >= 0.7,
      runs: {
        accepted: rates,
        commitsPerEvent,
        fsyncMs,
        ratios: runRatios,
        ratiosToBarePg: pgRatios,
        barePg: barePgRates,
        barePgCpuMicrosPerEvent: medianCpu(barePgCpuRuns),
        applied: applyRates,
        bareFastify: bareRates,
        routeThroughInject: injectRates,
        ingestWithoutRoute: ingestRates,
        cpuMicrosPerEvent: serverCpu,
        bareCpuMicrosPerEvent: bareCpu,
      },
    };
  } finally {
    for (const close of onClose) await close();
    for (const process of processes) await process.stop();
    await app.close();
    await hub.close();
    await opened.close();
    await cluster.stop();
  }
};
