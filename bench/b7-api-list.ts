/**
 * B7: a session-authenticated paged list route under autocannon (-c 100), against bare
 * Fastify with `pg` running the same statements (the session lookup, the page with its
 * counters: bare-fastify-pg.ts, the goal's reference since issue 49) and bare Fastify
 * serving the same page from memory, on the same machine in the same run. Each server runs
 * as its own process, ours as `npm start` runs it (`dist/main.js`, its heap flags, the
 * default log level); autocannon runs here.
 */
import os from 'node:os';
import autocannon from 'autocannon';
import pg from 'pg';
import { createDatabase } from '../packages/server/src/platform/db';
import { hashPassword } from '../packages/server/src/platform/passwords';
import { freePort, startTestCluster } from '../packages/server/test/cluster';
import { signInOverHttp, startServerProcess, type TServerProcess } from '../packages/server/test/processes';
import { countCpu, describeCpu, medianCpu } from './cpu';
import { median, type TFigure } from './figures';
import { buildServer, SERVER_ENTRIES, START_FLAGS, startBareFastify, startBareFastifyPg } from './servers';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const DURATION_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const PATH = '/api/notifications?page=2&per_page=20&column=created_at&order=desc';

type TRun = { requestsPerSecond: number; p50: number; p99: number; errors: number; non2xx: number; total: number };

const hammer = async (url: string, headers: Record<string, string>): Promise<TRun> => {
  const result = await autocannon({ url, connections: 100, duration: DURATION_SECONDS, headers });
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
    total: result.requests.total,
  };
};

export const runB7 = async (): Promise<TFigure> => {
  buildServer();
  const cluster = await startTestCluster({ durable: true });
  const processes: TServerProcess[] = [];
  try {
    const admin = new pg.Client({ connectionString: cluster.adminUrl });
    await admin.connect();
    await admin.query('create database sendwell_bench');
    await admin.end();
    const databaseUrl = cluster.adminUrl.replace(/\/[^/]*$/, '/sendwell_bench');

    const port = await freePort();
    const server = startServerProcess(
      {
        DATABASE_URL: databaseUrl,
        PORT: String(port),
        HOST: '127.0.0.1',
        SENDWELL_ROLE: 'web',
        // npm start's default. Fastify's two request lines cost ~9% of the rate here (1,521 against
        // 1,675 req/s at warn); requests have logged one line since.
        LOG_LEVEL: 'info',
        SECRET_KEY: 'bench-secret-key-that-is-long-enough-0123456789',
        DB_POOL_SIZE: '20',
        WEB_DIST_DIR: '/nonexistent',
        NODE_OPTIONS: START_FLAGS,
      },
      [],
      SERVER_ENTRIES.built,
      // BENCH_CPU_PROF=<dir>: the server writes a V8 CPU profile there when it stops.
      { nodeFlags: process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [] },
    );
    processes.push(server);
    await server.waitForOutput('Sendwell is running at', 60_000);

    const database = createDatabase(databaseUrl, { poolSize: 2 });
    const user = await database.db
      .insertInto('users')
      .values({ name: 'Bench', email: 'bench@example.com', password_hash: await hashPassword('secret123'), plan_id: 2 })
      .returning('id')
      .executeTakeFirstOrThrow();
    await database.db
      .insertInto('notifications')
      .values(
        Array.from({ length: 1000 }, (_, index) => ({
          user_id: user.id,
          title: `Report ${index + 1}`,
          body: 'all fine',
          created_at: new Date(Date.UTC(2026, 0, 1, 0, index)),
        })),
      )
      .execute();
    // Statistics, as autovacuum gathers them on any live database (it had not, within
    // minutes, on this fresh one): without them the planner takes the user's rows for 3 and
    // reads all 1,000 through a bitmap scan and a sort on every request, ~0.3 ms of
    // PostgreSQL each, instead of the 40 the index gives in order (0.02 ms).
    await database.pool.query('analyze notifications, notification_counters');
    await database.close();

    const base = `http://127.0.0.1:${port}`;
    const { response: login, cookie } = await signInOverHttp(base, 'bench@example.com', 'secret123');
    if (login.status !== 200) throw new Error(`sign-in failed: ${login.status}`);
    const check = await fetch(`${base}${PATH}`, { headers: { cookie } });
    if (check.status !== 200) throw new Error(`list route answered ${check.status}`);

    const barePort = await freePort();
    const bare = await startBareFastify(barePort);
    processes.push(bare);
    const barePgPort = await freePort();
    const barePg = await startBareFastifyPg(barePgPort, { databaseUrl });
    processes.push(barePg);
    const barePgCheck = await fetch(`http://127.0.0.1:${barePgPort}${PATH}`, { headers: { cookie } });
    if (barePgCheck.status !== 200) throw new Error(`bare Fastify + pg answered ${barePgCheck.status}`);

    // Transactions committed per request: each statement outside a transaction is one.
    const stats = new pg.Client({ connectionString: cluster.adminUrl });
    await stats.connect();
    const commits = async () => {
      // Backends report their counts about once a second once idle.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const { rows } = await stats.query("select xact_commit from pg_stat_database where datname = 'sendwell_bench'");
      return Number(rows[0].xact_commit);
    };
    const ours: (TRun & { statementsPerRequest: number })[] = [];
    const theirs: TRun[] = [];
    const withPg: TRun[] = [];
    // Where each request's CPU went, by process: the three servers, PostgreSQL, autocannon (here).
    const processesOf = {
      'Sendwell server': server.child.pid,
      'bare Fastify': bare.child.pid,
      'bare Fastify + pg': barePg.child.pid,
    };
    const ourCpu: Record<string, number>[] = [];
    const bareCpu: Record<string, number>[] = [];
    const barePgCpu: Record<string, number>[] = [];
    await hammer(`${base}${PATH}`, { cookie }); // warm-up: JIT, pool, plans
    await hammer(`http://127.0.0.1:${barePgPort}${PATH}`, { cookie });
    for (let run = 0; run < RUNS; run++) {
      const cpuPg = countCpu('autocannon', processesOf);
      const pgResult = await hammer(`http://127.0.0.1:${barePgPort}${PATH}`, { cookie });
      barePgCpu.push(cpuPg.perItem(pgResult.total));
      withPg.push(pgResult);
      const before = await commits();
      const cpu = countCpu('autocannon', processesOf);
      const result = await hammer(`${base}${PATH}`, { cookie });
      ourCpu.push(cpu.perItem(result.total));
      ours.push({ ...result, statementsPerRequest: Number(((await commits()) - before) / result.total) });
      const cpuBare = countCpu('autocannon', processesOf);
      const bareResult = await hammer(`http://127.0.0.1:${barePort}${PATH}`, {});
      bareCpu.push(cpuBare.perItem(bareResult.total));
      theirs.push(bareResult);
    }
    const oursRps = median(ours.map((run) => run.requestsPerSecond));
    const bareRps = median(theirs.map((run) => run.requestsPerSecond));
    // Each run's own ratio (bare Fastify + pg right before it), so a burst of load on the
    // shared machine moves both sides of one ratio.
    const pgRatios = ours.map((run, index) => run.requestsPerSecond / withPg[index]!.requestsPerSecond);
    const pgRatio = median(pgRatios);
    const barePgRps = median(withPg.map((run) => run.requestsPerSecond));
    const p99 = median(ours.map((run) => run.p99));
    await stats.end();
    const statements = median(ours.map((run) => run.statementsPerRequest));
    const failures = ours.reduce((sum, run) => sum + run.errors + run.non2xx, 0);
    return {
      id: 'B7',
      title: 'Authenticated paged list route (`GET /api/notifications`, 20 rows of 1,000) under autocannon -c 100',
      anchor: 'Fastify ~98% of bare node http on hello-world',
      goal: 'p99 < 100 ms at ≥ 1,000 req/s, and ≥ 0.7 of bare Fastify + pg running the same statements (session lookup, the page) in the same run',
      measured: `${Math.round(oursRps)} req/s, p50 ${median(ours.map((run) => run.p50))} ms, p99 ${p99} ms, ${statements.toFixed(2)} statements per request; bare Fastify + pg (the same session lookup and page statement) ${Math.round(barePgRps)} req/s, p99 ${median(withPg.map((run) => run.p99))} ms; ratio ${pgRatio.toFixed(2)} (the runs' ratios: ${pgRatios.map((value) => value.toFixed(2)).join(', ')}); bare Fastify (same page from memory) ${Math.round(bareRps)} req/s, ratio ${(oursRps / bareRps).toFixed(2)}. CPU µs per request: ours ${describeCpu(medianCpu(ourCpu))}; bare + pg ${describeCpu(medianCpu(barePgCpu))}; bare ${describeCpu(medianCpu(bareCpu))}. Load average ${os.loadavg()[0]!.toFixed(1)} at the end`,
      isGoalMet: p99 < 100 && oursRps >= 1000 && pgRatio >= 0.7 && failures === 0,
      runs: {
        ours,
        barePg: withPg,
        bare: theirs,
        ratiosToBarePg: pgRatios,
        cpuMicrosPerRequest: medianCpu(ourCpu),
        barePgCpuMicrosPerRequest: medianCpu(barePgCpu),
        bareCpuMicrosPerRequest: medianCpu(bareCpu),
      },
    };
  } finally {
    for (const process of processes) await process.stop();
    await cluster.stop();
  }
};
