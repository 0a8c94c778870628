/**
 * B13: a rolling restart, as a deploy does it. Three worker processes (role `worker`) on
 * one PostgreSQL send a 20,000-recipient send to a local SMTP sink (each answer 10 ms, as a
 * server near by); at a quarter, half and three quarters of the send the worker holding
 * the send's claims is sent SIGTERM and a new worker is started in its place. Figures: the
 * time from SIGTERM to the process's exit for each stopped worker, the recipients left
 * `unknown` and those the sink got twice. Several sends; the stop times are pooled.
 */
import os from 'node:os';
import { sql } from 'kysely';
import { pino } from 'pino';
import { createSend } from '../packages/server/src/modules/delivery/delivery.service';
import { openPlatform } from '../packages/server/src/platform/bootstrap';
import { loadConfig } from '../packages/server/src/platform/config';
import { startServerProcess, type TServerProcess } from '../packages/server/test/processes';
import { startCountingSink } from '../packages/server/test/sending';
import { waitFor } from '../packages/server/test/wait';
import { median, type TFigure } from './figures';
import { benchEnvironment, seedAccount, seedList } from './seed';

const RECIPIENTS = Number(process.env.BENCH_B13_RECIPIENTS ?? 20_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const WORKERS = 3;
const GOAL_SECONDS = 5;

/**
 * What a stopped worker logged from its SIGTERM on, each line with the milliseconds since the
 * first (pino's `time`): where a slow stop spent its time.
 */
const stopStepsOf = (worker: TServerProcess) => {
  const lines = worker
    .output()
    .split('\n')
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as { time: number; msg: string }];
      } catch {
        return [];
      }
    });
  const first = lines.findIndex((line) => line.msg === 'stopping');
  if (first === -1) return [];
  return lines.slice(first).map((line) => `${line.time - lines[first]!.time} ms ${line.msg}`);
};

/** The presence keys a worker has held, from its log. */
const keysOf = (worker: TServerProcess) =>
  [...worker.output().matchAll(/"presenceKey":(\d+)/g)].map((match) => Number(match[1]));

export const runB13 = async (): Promise<TFigure> => {
  const loadBefore = os.loadavg()[0]!.toFixed(1);
  const sink = await startCountingSink({ answerDelayMs: 10 });
  const { env, cluster } = await benchEnvironment('sendwell_bench_rolling', {
    LOG_LEVEL: 'silent',
    ALLOW_LOOPBACK_SMTP: 'true',
  });
  const opened = await openPlatform(loadConfig(env, []), pino({ level: 'silent' }));
  const { platform } = opened;
  const stops: { ms: number; claims: number; code: number | null; steps: string[] }[] = [];
  let unknown = 0;
  const workers: TServerProcess[] = [];
  const startWorker = () => startServerProcess({ ...env, LOG_LEVEL: 'info' }, ['--role', 'worker']);
  try {
    const owner = await seedAccount(platform, {
      values: {
        name: 'Sink',
        provider: 'smtp',
        driver: 'smtp',
        username: 'mailer',
        host: '127.0.0.1',
        port: sink.port,
        encryption: 'tls',
        from_address: 'news@bench.test',
        mail_per_day: 10_000_000,
      },
      secret: { column: 'password', value: 'any' },
    });
    /** Claims of the send held now under each worker's keys. */
    const claimsOf = async (sendId: number, worker: TServerProcess) =>
      (
        await sql<{ claims: number }>`
          select count(*)::int as claims from send_recipients
           where send_id = ${sendId} and status = 'sending' and worker_key = any(${keysOf(worker)}::bigint[])`.execute(
          platform.db,
        )
      ).rows[0]!.claims;
    for (let run = 0; run < RUNS; run++) {
      const listId = await seedList(platform, owner, { run, domain: 'bench.test', size: RECIPIENTS });
      workers.push(...Array.from({ length: WORKERS }, startWorker));
      await Promise.all(workers.map((worker) => worker.waitForOutput('worker started')));
      const arrivedBefore = sink.count();
      const sendId = await createSend(platform, owner.userId, {
        accountId: owner.accountId,
        fromName: 'Bench',
        fromAddress: 'news@bench.test',
        subject: 'Rolling restart',
        html: '<p>Hello</p>',
        listIds: [listId],
      });
      for (let round = 1; round <= WORKERS; round++) {
        const threshold = arrivedBefore + Math.floor((RECIPIENTS * round) / (WORKERS + 1));
        await waitFor(() => sink.count() >= threshold, 600_000, `${threshold} messages`, 20);
        // The worker sending now: the one holding claims (the others are idle or starting).
        let target: TServerProcess | undefined;
        let claims = 0;
        await waitFor(
          async () => {
            for (const worker of workers) {
              claims = await claimsOf(sendId, worker);
              if (claims > 0) {
                target = worker;
                return true;
              }
            }
            return false;
          },
          600_000,
          'a worker holding claims',
          10,
        );
        const signalledAt = performance.now();
        const code = await target!.stop('SIGTERM');
        stops.push({ ms: performance.now() - signalledAt, claims, code, steps: stopStepsOf(target!) });
        workers.splice(workers.indexOf(target!), 1, startWorker());
      }
      await waitFor(
        async () =>
          (await platform.db.selectFrom('sends').select('status').where('id', '=', sendId).executeTakeFirstOrThrow())
            .status === 'finished',
        600_000,
        'the send to finish',
        100,
      );
      const send = await platform.db
        .selectFrom('sends')
        .select(['unknown_count'])
        .where('id', '=', sendId)
        .executeTakeFirstOrThrow();
      unknown += send.unknown_count;
      await Promise.all(workers.splice(0).map((worker) => worker.stop('SIGTERM')));
    }
  } finally {
    await Promise.all(workers.map((worker) => worker.stop('SIGKILL')));
    await opened.close();
    await cluster.stop();
    await sink.close();
  }
  const twice = sink.twice().length;
  const seconds = stops.map((stop) => stop.ms / 1000);
  const slowest = Math.max(...seconds);
  return {
    id: 'B13',
    title: `Rolling restart: SIGTERM of the sending worker, one of ${WORKERS}, three times in turn during a ${RECIPIENTS.toLocaleString('en-US')}-recipient send to a local SMTP sink (10 ms an answer), each replaced by a new worker; ${RUNS} sends`,
    anchor:
      'Kubernetes-style rolling deploys (a pod gets SIGTERM, then SIGKILL after its grace period, 30 s by default)',
    goal: `0 unknown, 0 twice, each worker gone in < ${GOAL_SECONDS} s`,
    measured: `time from SIGTERM to exit ${median(seconds).toFixed(2)} s median, ${slowest.toFixed(2)} s the slowest of ${stops.length} stops (each held ${Math.min(...stops.map((stop) => stop.claims))}–${Math.max(...stops.map((stop) => stop.claims))} claimed recipients when signalled; exit codes ${[...new Set(stops.map((stop) => stop.code))].join(', ')}); recipients left unknown: ${unknown} of ${(RUNS * RECIPIENTS).toLocaleString('en-US')}; recipients who got the message twice: ${twice}. Load average ${loadBefore} before, ${os.loadavg()[0]!.toFixed(1)} after (${Number(loadBefore) >= 4 ? 'a loaded machine' : 'a quiet machine'})`,
    isGoalMet: unknown === 0 && twice === 0 && slowest < GOAL_SECONDS,
    // Each stop with its own account of where its time went (`stopStepsOf`).
    runs: { stops, unknown, twice },
  };
};
