/**
 * B9: peak RSS of a worker during a 1,000,000-recipient send. The worker is the real one,
 * the built server (`dist/main.js`, as `npm start` runs it; built here first) with
 * SENDWELL_ROLE=worker in a process of its own, as it is deployed: it takes the snapshot
 * and dispatch jobs from the queue and sends through the Mailgun API. BENCH_B9_ENTRY=tsx
 * runs `src/main.ts` under tsx instead, for comparison. This process (the harness) seeds
 * the data, serves the Mailgun contract fake and reads the worker's memory from /proc:
 * VmHWM, the kernel's own high-water mark of its RSS, so a spike between two samples
 * still counts. A fresh worker per run. Then the idle RSS of each role (web, worker, all),
 * built and under tsx, each a fresh process on the same database.
 */
import fs from 'node:fs';
import { sql } from 'kysely';
import { pino } from 'pino';
import { listPlans, setUserPlan } from '../packages/server/src/modules/plans/plans.repository';
import { openPlatform } from '../packages/server/src/platform/bootstrap';
import { loadConfig } from '../packages/server/src/platform/config';
import { freePort } from '../packages/server/test/cluster';
import { startServerProcess } from '../packages/server/test/processes';
import { median, type TFigure } from './figures';
import { benchEnvironment, createMailgunSend, seedMailgunAccount, seedMailgunList, startBenchMailgun } from './seed';
import { buildServer, SERVER_ENTRIES, START_FLAGS, WORKER_FLAGS } from './servers';

const GOAL_MB = 200;
/**
 * Node flags of each role's process: the worker's as README's production command runs it
 * (`WORKER_FLAGS`: npm start's and a 4 MB young generation), the others as `npm start`;
 * BENCH_B9_NODE_OPTIONS for experiments, for every role.
 */
const flagsOf = (role: (typeof ROLES)[number]) =>
  process.env.BENCH_B9_NODE_OPTIONS ?? (role === 'worker' ? WORKER_FLAGS : START_FLAGS);
type TEntry = keyof typeof SERVER_ENTRIES;
/** Which server the send runs on: `built` (default, what `npm start` runs) or `tsx`. */
const ENTRY: TEntry = process.env.BENCH_B9_ENTRY === 'tsx' ? 'tsx' : 'built';
const ROLES = ['web', 'worker', 'all'] as const;
/** How long a started process is left alone before its idle RSS is read. */
const SETTLE_MS = 3_000;

/** A process's resident set now and at its peak, in MB, from /proc/<pid>/status. */
export const memoryOf = (pid: number) => {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kilobytes = (field: string) => Number(status.match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'))?.[1] ?? 0);
  return { rssMb: kilobytes('VmRSS') / 1024, peakMb: kilobytes('VmHWM') / 1024 };
};

/** A fresh process of `role`, left idle for a moment after it is ready: its RSS in MB. */
const idleRssOf = async (entry: TEntry, role: (typeof ROLES)[number], env: Record<string, string>) => {
  const server = startServerProcess(
    { ...env, SENDWELL_ROLE: role, LOG_LEVEL: 'info', PORT: String(await freePort()), NODE_OPTIONS: flagsOf(role) },
    [],
    SERVER_ENTRIES[entry],
  );
  try {
    await server.waitForOutput(role === 'worker' ? 'worker started' : 'Sendwell is running at', 60_000);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    return memoryOf(server.child.pid!).rssMb;
  } finally {
    await server.stop();
  }
};

export const runB9 = async (): Promise<TFigure> => {
  const RECIPIENTS = Number(process.env.BENCH_B9_RECIPIENTS ?? 1_000_000);
  const RUNS = Number(process.env.BENCH_RUNS ?? 3);
  buildServer();
  const mailgun = await startBenchMailgun();
  const { env, cluster } = await benchEnvironment('sendwell_bench_worker', {
    MAILGUN_US_URL: mailgun.urls.us,
    MAILGUN_EU_URL: mailgun.urls.eu,
  });
  // The harness only enqueues: the web role never takes jobs.
  const config = loadConfig({ ...env, LOG_LEVEL: 'silent', SENDWELL_ROLE: 'web' }, []);
  const opened = await openPlatform(config, pino({ level: 'silent' }));
  const { platform } = opened;
  try {
    const owner = await seedMailgunAccount(platform);
    // The bench user registers on the free plan, which sends with the test inbox only.
    const paid = (await listPlans(platform.db)).find((plan) => plan.allows_accounts);
    if (!paid) throw new Error('No plan allows sending accounts');
    await setUserPlan(platform.db, owner.userId, paid.id);
    const peaks: number[] = [];
    const idles: number[] = [];
    const rates: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const listId = await seedMailgunList(platform, owner, run, RECIPIENTS);
      await sql`vacuum analyze list_members`.execute(platform.db);

      const worker = startServerProcess(
        {
          ...env,
          SENDWELL_ROLE: 'worker',
          LOG_LEVEL: 'info',
          NODE_OPTIONS: flagsOf('worker'),
        },
        [],
        SERVER_ENTRIES[ENTRY],
      );
      try {
        await worker.waitForOutput('worker started', 60_000);
        const pid = worker.child.pid!;
        idles.push(memoryOf(pid).rssMb);
        const acceptedBefore = mailgun.accepted.recipients;
        const started = performance.now();
        const sendId = await createMailgunSend(platform, owner, listId);
        for (;;) {
          await new Promise((resolve) => setTimeout(resolve, 250));
          const { status } = await platform.db
            .selectFrom('sends')
            .select('status')
            .where('id', '=', sendId)
            .executeTakeFirstOrThrow();
          if (status === 'finished') break;
          if (!['queued', 'snapshotting', 'sending'].includes(status)) throw new Error(`The send ended ${status}`);
          if (worker.child.exitCode !== null) throw new Error(`The worker exited:\n${worker.output().slice(-3000)}`);
        }
        const seconds = (performance.now() - started) / 1000;
        peaks.push(memoryOf(pid).peakMb);
        const handedOver = mailgun.accepted.recipients - acceptedBefore;
        if (handedOver !== RECIPIENTS) throw new Error(`Mailgun got ${handedOver} of ${RECIPIENTS}`);
        rates.push(RECIPIENTS / seconds);
        console.log(
          `  run ${run + 1}: worker peak RSS ${Math.round(peaks.at(-1)!)} MB (idle ${Math.round(idles.at(-1)!)} MB), ${Math.round(rates.at(-1)!).toLocaleString('en-US')} recipients/s`,
        );
      } finally {
        await worker.stop();
      }
    }
    const peakMb = median(peaks);

    // Idle RSS of every role, built and under tsx, alternating so drift hits both alike.
    const idleByRole: Record<string, number[]> = {};
    for (let run = 0; run < RUNS; run++) {
      for (const role of ROLES) {
        for (const entry of ['built', 'tsx'] as const) {
          const rss = await idleRssOf(entry, role, env);
          const key = `${role} ${entry}`;
          idleByRole[key] = [...(idleByRole[key] ?? []), rss];
        }
      }
    }
    const idleMb = (role: string, entry: TEntry) => Math.round(median(idleByRole[`${role} ${entry}`]!));
    const idleText = ROLES.map((role) => `${role} ${idleMb(role, 'built')} MB (tsx ${idleMb(role, 'tsx')})`).join(', ');
    console.log(`  idle RSS ${SETTLE_MS / 1000} s after start, built (tsx): ${idleText}`);

    const server = ENTRY === 'built' ? 'the built server, dist/main.js' : 'src/main.ts under tsx';
    return {
      id: 'B9',
      title: `Peak RSS of the worker process (${server}, SENDWELL_ROLE=worker) during a ${RECIPIENTS.toLocaleString('en-US')}-recipient send through the Mailgun API (snapshot and 1,000-recipient batches; the Mailgun fake and the harness in another process); idle RSS of each role`,
      anchor: 'listmonk 57 MB over 7M sends',
      goal: `< ${GOAL_MB} MB (first goal 256 MB, met at 231)`,
      measured: `the worker run with ${flagsOf('worker')}${flagsOf('worker') === WORKER_FLAGS ? " (as README's worker command)" : ''}, the others with ${flagsOf('web')}: peak RSS ${Math.round(peakMb)} MB (VmHWM, median of ${RUNS} fresh workers; ${Math.round(median(idles))} MB idle after start); ${Math.round(median(rates)).toLocaleString('en-US')} recipients/s from the send's creation to finished. Idle RSS ${SETTLE_MS / 1000} s after start, built (under tsx): ${idleText}`,
      isGoalMet: peakMb < GOAL_MB,
      runs: {
        entry: ENTRY,
        peakRssMb: peaks,
        idleRssMb: idles,
        recipientsPerSecond: rates,
        idleRssMbByRole: idleByRole,
      },
    };
  } finally {
    await opened.close();
    await cluster.stop();
    await mailgun.close();
  }
};
