/**
 * B9: peak RSS of a worker during a 1,000,000-recipient send. The worker is the real one,
 * `src/main.ts` with SENDWELL_ROLE=worker in a process of its own, as it is deployed: it
 * takes the snapshot and dispatch jobs from the queue and sends through the Mailgun API.
 * This process (the harness) seeds the data, serves the Mailgun contract fake and reads
 * the worker's memory from /proc: VmHWM, the kernel's own high-water mark of its RSS, so a
 * spike between two samples still counts. A fresh worker per run.
 */
import fs from 'node:fs';
import { sql } from 'kysely';
import { pino } from 'pino';
import { openPlatform } from '../packages/server/src/platform/bootstrap';
import { loadConfig } from '../packages/server/src/platform/config';
import { startServerProcess } from '../packages/server/test/processes';
import { median, type TFigure } from './figures';
import { benchEnvironment, createMailgunSend, seedMailgunAccount, seedMailgunList, startBenchMailgun } from './seed';

const GOAL_MB = 256;
/** Node flags for the worker, for experiments (`--max-old-space-size=…`); none by default, as deployed. */
const WORKER_NODE_OPTIONS = process.env.BENCH_B9_NODE_OPTIONS ?? '';

/** A process's resident set now and at its peak, in MB, from /proc/<pid>/status. */
export const memoryOf = (pid: number) => {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kilobytes = (field: string) => Number(status.match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'))?.[1] ?? 0);
  return { rssMb: kilobytes('VmRSS') / 1024, peakMb: kilobytes('VmHWM') / 1024 };
};

export const runB9 = async (): Promise<TFigure> => {
  const RECIPIENTS = Number(process.env.BENCH_B9_RECIPIENTS ?? 1_000_000);
  const RUNS = Number(process.env.BENCH_RUNS ?? 3);
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
    const peaks: number[] = [];
    const idles: number[] = [];
    const rates: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const listId = await seedMailgunList(platform, owner, run, RECIPIENTS);
      await sql`vacuum analyze list_members`.execute(platform.db);

      const worker = startServerProcess({
        ...env,
        SENDWELL_ROLE: 'worker',
        LOG_LEVEL: 'info',
        ...(WORKER_NODE_OPTIONS ? { NODE_OPTIONS: WORKER_NODE_OPTIONS } : {}),
      });
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
    return {
      id: 'B9',
      title: `Peak RSS of the worker process (src/main.ts, SENDWELL_ROLE=worker) during a ${RECIPIENTS.toLocaleString('en-US')}-recipient send through the Mailgun API (snapshot and 1,000-recipient batches; the Mailgun fake and the harness in another process)`,
      anchor: 'listmonk 57 MB over 7M sends',
      goal: `< ${GOAL_MB} MB`,
      measured: `${WORKER_NODE_OPTIONS ? `worker run with NODE_OPTIONS=${WORKER_NODE_OPTIONS}: ` : ''}peak RSS ${Math.round(peakMb)} MB (VmHWM, median of ${RUNS} fresh workers; ${Math.round(median(idles))} MB idle after start); ${Math.round(median(rates)).toLocaleString('en-US')} recipients/s from the send's creation to finished`,
      isGoalMet: peakMb < GOAL_MB,
      runs: { peakRssMb: peaks, idleRssMb: idles, recipientsPerSecond: rates },
    };
  } finally {
    await opened.close();
    await cluster.stop();
    await mailgun.close();
  }
};
