/**
 * B15: delayed-job punctuality. A worker process (the server, role `worker`) runs the
 * product's queues; another process (this one, as a web process would) enqueues 100
 * spam-test deadlines (`spam-test.expire`, for tests that do not exist, so each job is one
 * short read) due at random times over 5 minutes. The figure is each job's lateness, from
 * its `start_after` to the moment the worker claimed it (both PostgreSQL's clock, pg-boss's
 * own columns). Before that, the worker's idle database load: transactions per second
 * while nothing is due, so a faster queue is not bought with a busier database.
 */
import os from 'node:os';
import pg from 'pg';
import { pino } from 'pino';
import { expireSpamTestJob } from '../packages/server/src/modules/spam-test/spam-test.jobs';
import { openPlatform } from '../packages/server/src/platform/bootstrap';
import { loadConfig } from '../packages/server/src/platform/config';
import { startServerProcess, type TServerProcess } from '../packages/server/test/processes';
import { median, type TFigure } from './figures';
import { benchEnvironment } from './seed';

const JOBS = Number(process.env.BENCH_B15_JOBS ?? 100);
const SPREAD_MS = Number(process.env.BENCH_B15_SPREAD_SECONDS ?? 300) * 1000;
const IDLE_SECONDS = Number(process.env.BENCH_B15_IDLE_SECONDS ?? 60);

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

/** Committed and rolled-back transactions of one database so far (PostgreSQL's statistics). */
const transactions = async (client: pg.Client, database: string) => {
  // The statistics of other backends reach the shared counters within a second or so; a
  // snapshot taken in this transaction would otherwise stay frozen.
  await client.query('select pg_stat_clear_snapshot()');
  const { rows } = await client.query<{ count: string }>(
    'select xact_commit + xact_rollback as count from pg_stat_database where datname = $1',
    [database],
  );
  return Number(rows[0]!.count);
};

export const runB15 = async (): Promise<TFigure> => {
  const database = 'sendwell_bench_delayed_jobs';
  const { env, cluster } = await benchEnvironment(database, { LOG_LEVEL: 'warn', SPAM_TEST_DNSBL: '' });
  const processes: TServerProcess[] = [];
  const admin = new pg.Client({ connectionString: cluster.adminUrl });
  try {
    // The schema and the queues, as a web process opens them (it enqueues, never works).
    const opened = await openPlatform(loadConfig({ ...env, SENDWELL_ROLE: 'web' }, []), pino({ level: 'silent' }));
    const worker = startServerProcess({ ...env, SENDWELL_ROLE: 'worker', LOG_LEVEL: 'info' });
    processes.push(worker);
    await worker.waitForOutput('worker started', 60_000);
    await admin.connect();
    // Minute ticks are counted from the first whole minute the worker was up for: the one it
    // started in is sent at start, as a catch-up.
    const { rows: upRows } = await admin.query<{ at: Date }>('select now() as at');
    const workerUpAt = upRows[0]!.at;

    // Idle load: the worker alone, after its start-up work has settled.
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    const idleStart = await transactions(admin, database);
    const idleStartedAt = performance.now();
    await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
    const idleEnd = await transactions(admin, database);
    const idleSeconds = (performance.now() - idleStartedAt) / 1000;
    // Each reading is one transaction of this client's own, on the admin database: not counted.
    const idlePerSecond = (idleEnd - idleStart) / idleSeconds;

    const loadBefore = os.loadavg()[0]!;
    const enqueuedAt = Date.now();
    const ids: string[] = [];
    for (let index = 0; index < JOBS; index++) {
      const startAfter = new Date(enqueuedAt + 2_000 + Math.random() * SPREAD_MS);
      const id = await opened.platform.queue.enqueue(expireSpamTestJob, { testId: 1_000_000 + index }, { startAfter });
      if (id) ids.push(id);
    }
    const deadline = enqueuedAt + SPREAD_MS + 120_000;
    type TRow = { lateness_ms: number | null; state: string };
    const jobs = new pg.Client({ connectionString: env.DATABASE_URL });
    await jobs.connect();
    let rows: TRow[] = [];
    let ticks: { name: string; lateness_ms: number }[] = [];
    try {
      for (;;) {
        ({ rows } = await jobs.query<TRow>(
          `select state::text, extract(epoch from started_on - start_after) * 1000 as lateness_ms
             from pgboss.job where id = any($1::uuid[])`,
          [ids],
        ));
        if (rows.length === ids.length && rows.every((row) => row.state === 'completed')) break;
        if (Date.now() > deadline) break;
        await new Promise((resolve) => setTimeout(resolve, 5_000));
      }
      // The minute's ticks (sending and drip) the cron schedules started meanwhile: each is
      // due on the minute, so its lateness is how far into the minute it started.
      ({ rows: ticks } = await jobs.query<{ name: string; lateness_ms: number }>(
        `select name, extract(epoch from started_on - date_trunc('minute', started_on)) * 1000 as lateness_ms
           from pgboss.job
          where name in ('sending.tick', 'campaigns.tick') and started_on is not null
            and date_trunc('minute', started_on) > $1`,
        [workerUpAt],
      ));
    } finally {
      await jobs.end();
    }
    const loadAfter = os.loadavg()[0]!;
    await opened.close();
    const started = rows.filter((row) => row.lateness_ms !== null).map((row) => Number(row.lateness_ms) / 1000);
    const missing = ids.length - started.length;
    const p50 = median(started);
    const p95 = percentile(started, 95);
    const max = Math.max(...started);
    const round = (seconds: number) => Math.round(seconds * 100) / 100;
    const tickSeconds = ticks.map((row) => Number(row.lateness_ms) / 1000);
    const tickText =
      tickSeconds.length > 0
        ? `; ${tickSeconds.length} minute ticks (sending, drip) started p50 ${round(median(tickSeconds))} s, max ${round(Math.max(...tickSeconds))} s into their minute`
        : '';
    return {
      id: 'B15',
      title: `delayed-job punctuality: ${ids.length} spam-test deadlines enqueued by another process, due at random times over ${SPREAD_MS / 60_000} minutes, run by a worker process; lateness from start_after to the claim`,
      anchor: 'pg-boss polling default (seconds)',
      goal: 'p95 < 2 s, max < 5 s',
      measured: `lateness p50 ${round(p50)} s, p95 ${round(p95)} s, max ${round(max)} s${missing > 0 ? `; ${missing} not started within 2 minutes of the last due time` : ''} (load average ${loadBefore.toFixed(1)} → ${loadAfter.toFixed(1)}); the worker idle: ${idlePerSecond.toFixed(1)} transactions/s over ${Math.round(idleSeconds)} s${tickText}`,
      isGoalMet: missing === 0 && p95 < 2 && max < 5,
      runs: {
        latenessSeconds: started.map(round),
        tickLatenessSeconds: tickSeconds.map(round),
        idleTransactionsPerSecond: idlePerSecond,
        loadBefore,
        loadAfter,
      },
    };
  } finally {
    await admin.end().catch(() => {});
    for (const child of processes) await child.stop();
    await cluster.stop();
  }
};
