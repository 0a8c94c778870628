import { fromKysely, type Job, PgBoss, type Queue } from 'pg-boss';
import { z } from 'zod';
import type { TPlatform } from './context';
import { type Executor, guardedClient } from './db';

/** What a job handler gets besides its payload. */
export type TJobContext = { jobId: string; retryCount: number; signal: AbortSignal };

/**
 * A kind of job. Payloads are ids (DESIGN §3): the handler re-reads its rows and takes a
 * status lock, so running it twice is harmless. The schema checks the payload at the
 * boundary, since a queued job may predate the code that runs it.
 */
export type TJobDefinition<S extends z.ZodType = z.ZodType> = {
  name: string;
  schema: S;
  handler: (data: z.infer<S>, platform: TPlatform, context: TJobContext) => Promise<void>;
  /** A cron expression (UTC) to run it on a schedule, in worker processes. */
  cron?: string;
  /**
   * The queue's options; `notify: false` for a queue polled every 2 s rather than woken by
   * NOTIFY; `policy` as pg-boss has them (`stately`: one job waiting and one running per
   * `singletonKey`).
   */
  queue?: Omit<Queue, 'name'> & { notify?: boolean };
  /** Jobs a worker process runs at once for this queue. */
  concurrency?: number;
  /**
   * Runs once a job has failed for good: its last retry threw, or it outlived its
   * expiry every time (its worker died). The job's payload goes to a dead-letter queue,
   * `<name>.given-up`, whose handler this is, so the state the job acted on can be ended
   * (failed, refunded, the user told) instead of waiting forever.
   */
  onGivenUp?: (data: z.infer<S>, platform: TPlatform) => Promise<void>;
};

/** The dead-letter queue of a job kind with `onGivenUp`. */
export const givenUpQueueOf = (name: string) => `${name}.given-up`;

export const defineJob = <S extends z.ZodType>(definition: TJobDefinition<S>): TJobDefinition<S> => definition;

/** A scheduled job's payload: nothing (pg-boss's schedule sends an empty object, and so does a wake-up). */
const ZNoPayload = z.object({}).passthrough();

/**
 * A job run on a schedule (`cron`, UTC) that finds what is due itself, so it takes no
 * payload; it may also be woken at once by enqueuing it with `{}`.
 */
export const defineScheduledJob = ({
  handler,
  ...definition
}: Omit<TJobDefinition<typeof ZNoPayload>, 'schema' | 'handler' | 'cron'> & {
  cron: string;
  /** What it answers (how much it did) is not kept. */
  handler: (platform: TPlatform) => Promise<unknown>;
}): TJobDefinition<typeof ZNoPayload> => ({
  ...definition,
  schema: ZNoPayload,
  handler: async (_data, platform) => {
    await handler(platform);
  },
});

export type TQueue = {
  boss: PgBoss;
  /**
   * Enqueues a job. Pass the service's transaction as `executor` so the job exists only
   * if the state change it acts on commits.
   */
  enqueue: <S extends z.ZodType>(
    job: TJobDefinition<S>,
    data: z.infer<S>,
    options?: { executor?: Executor; startAfter?: Date; singletonKey?: string },
  ) => Promise<string | null>;
  /** Starts the handlers of every job kind (worker role). */
  work: (platform: TPlatform) => Promise<void>;
  isHealthy: () => Promise<boolean>;
  stop: () => Promise<void>;
};

/** pg-boss's schema, and its internal queue that turns cron schedules into jobs. */
const SCHEMA = 'pgboss';
const CRON_QUEUE = '__pgboss__send-it';

/** How often a worker process looks for delayed jobs coming due, and how far ahead. */
const DUE_WATCH_MS = 1_000;
const DUE_LOOKAHEAD_MS = DUE_WATCH_MS + 250;
/** While due jobs wait and a worker of theirs is idle, the next look comes this soon. */
const DUE_DRAIN_MS = 100;
/** A wake lands this long after the due instant, so the fetch's `start_after < now()` holds. */
const DUE_MARGIN_MS = 15;

/**
 * The queues with jobs due within `$2` ms (created or waiting for a retry, not yet
 * claimed), and how long until the first of them: a range on the pending-jobs index
 * (`job_i11`: name, then start_after, for rows `state < 'active' AND NOT blocked`).
 */
const DUE_SQL = `
  select name, ceil(extract(epoch from min(start_after) - now()) * 1000)::int as in_ms
    from ${SCHEMA}.job
   where name = any($1::text[])
     and state < 'active'
     and not blocked
     and start_after < now() + $2::int * interval '1 millisecond'
   group by name`;

/**
 * Wakes this process's pg-boss workers when delayed jobs come due (R39, B15).
 *
 * pg-boss wakes workers through NOTIFY when a job is inserted and otherwise polls a queue
 * every `notifyPollingIntervalSeconds` (30 s), and after a fetch that returned a job it waits
 * that long again. A job inserted with `startAfter` ahead (spam-test deadlines, dispatch
 * continuations, Mailgun event batches) or set back for a retry is not due when its NOTIFY
 * arrives, so it waited up to 30 s, and a queue of them drained two jobs per 30 s: 100
 * deadlines due over 5 minutes started 22 s late at the median and 208 s at p95, 72 of them
 * not within 2 minutes of the last one's time. Polling every queue's workers faster would
 * cost a fetch per worker per second (26 here); instead one statement a second finds the
 * queues with jobs due before the next look and wakes their workers at the due instant,
 * and again at once while due jobs remain and a worker of theirs is idle.
 */
const watchDueJobs = (boss: PgBoss, names: string[], onError: (error: Error) => void) => {
  const alarms = new Map<string, NodeJS.Timeout>();
  let timer: NodeJS.Timeout | null = null;
  let isStopped = false;
  const workersOf = (name: string) =>
    boss.getWipData({ includeInternal: true }).filter((worker) => worker.name === name);
  const wake = (name: string) => {
    for (const worker of workersOf(name)) boss.notifyWorker(worker.id);
  };
  const look = async () => {
    let next = DUE_WATCH_MS;
    try {
      const { rows } = await boss.getDb().executeSql(DUE_SQL, [names, DUE_LOOKAHEAD_MS]);
      for (const row of rows as { name: string; in_ms: number }[]) {
        const inMs = Number(row.in_ms);
        if (inMs <= 0) {
          if (workersOf(row.name).some((worker) => worker.count === 0)) next = DUE_DRAIN_MS;
          wake(row.name);
          continue;
        }
        clearTimeout(alarms.get(row.name));
        const alarm = setTimeout(() => {
          alarms.delete(row.name);
          wake(row.name);
        }, inMs + DUE_MARGIN_MS);
        alarm.unref();
        alarms.set(row.name, alarm);
      }
    } catch (error) {
      if (!isStopped) onError(error as Error);
    }
    if (isStopped) return;
    timer = setTimeout(() => void look(), next);
    timer.unref();
  };
  timer = setTimeout(() => void look(), 0);
  timer.unref();
  return {
    /** A job this process just enqueued, due soon: wake its workers at its time without waiting for the next look. */
    expect: (name: string, startAfter: Date) => {
      const inMs = startAfter.getTime() - Date.now();
      if (isStopped || inMs > DUE_LOOKAHEAD_MS) return;
      setTimeout(() => wake(name), Math.max(0, inMs) + DUE_MARGIN_MS).unref();
    },
    stop: () => {
      isStopped = true;
      if (timer) clearTimeout(timer);
      for (const alarm of alarms.values()) clearTimeout(alarm);
      alarms.clear();
    },
  };
};

type Options = {
  url: string;
  jobs: TJobDefinition[];
  /** Worker processes run maintenance (expiry, retention); web processes only enqueue. */
  isWorker: boolean;
  onError: (error: Error) => void;
};

export const startQueue = async ({ url, jobs, isWorker, onError }: Options): Promise<TQueue> => {
  const boss = new PgBoss({
    connectionString: url,
    max: 4,
    schema: 'pgboss',
    supervise: isWorker,
    schedule: isWorker,
    migrate: true,
    useListenNotify: isWorker,
    // Cron schedules (the sending and drip ticks) are turned into jobs by a claim this often;
    // pg-boss's 30 s default started a minute's tick up to 30 s late (R39: within 5 s).
    cronMonitorIntervalSeconds: 2,
    // pg.Pool option, passed through by pg-boss: see guardedClient.
    ...({ Client: guardedClient(onError) } as object),
  });
  boss.on('error', onError);
  await boss.start();
  for (const job of jobs) {
    // Idempotent; every process makes sure the queues it sends to exist.
    const deadLetter = job.onGivenUp ? givenUpQueueOf(job.name) : undefined;
    // pg-boss sends no NOTIFY when it moves a job to its dead-letter queue: that queue is polled.
    if (deadLetter) await boss.createQueue(deadLetter, { retryLimit: 5, retryBackoff: true, notify: false });
    const added = {
      ...(deadLetter ? { deadLetter } : {}),
      ...(job.queue?.heartbeatSeconds ? { heartbeatSeconds: job.queue.heartbeatSeconds } : {}),
    };
    await boss.createQueue(job.name, { retryLimit: 3, retryBackoff: true, notify: true, ...job.queue, ...added });
    // A queue an earlier version made gets what was added since (a dead-letter queue, heartbeats).
    if (Object.keys(added).length > 0) await boss.updateQueue(job.name, added);
  }
  const byName = new Map(jobs.map((job) => [job.name, job]));
  let isStopped = false;
  let dueJobs: ReturnType<typeof watchDueJobs> | null = null;

  return {
    boss,
    enqueue: async (job, data, options = {}) => {
      if (!byName.has(job.name)) throw new Error(`Job ${job.name} is not registered with the queue.`);
      const id = await boss.send(job.name, data as object, {
        startAfter: options.startAfter,
        singletonKey: options.singletonKey,
        ...(options.executor ? { db: fromKysely(options.executor) } : {}),
      });
      // Inside a transaction the job exists only at commit; a wake before then finds nothing
      // and the next look finds it.
      if (options.startAfter) dueJobs?.expect(job.name, options.startAfter);
      return id;
    },
    work: async (platform) => {
      for (const job of jobs) {
        await boss.work(
          job.name,
          { batchSize: 1, localConcurrency: job.concurrency ?? 2, pollingIntervalSeconds: 2 },
          async ([received]: Job<unknown>[]) => {
            if (!received) return;
            const data = job.schema.parse(received.data);
            await job.handler(data, platform, {
              jobId: received.id,
              retryCount: received.retryCount,
              signal: received.signal,
            });
          },
        );
        if (job.cron) await boss.schedule(job.name, job.cron, {}, { tz: 'UTC' });
        const onGivenUp = job.onGivenUp;
        if (onGivenUp) {
          await boss.work(
            givenUpQueueOf(job.name),
            { batchSize: 1, localConcurrency: 1, pollingIntervalSeconds: 5 },
            async ([received]: Job<unknown>[]) => {
              if (received) await onGivenUp(job.schema.parse(received.data), platform);
            },
          );
        }
      }
      dueJobs ??= watchDueJobs(boss, [...byName.keys(), CRON_QUEUE], onError);
    },
    isHealthy: async () => {
      if (isStopped) return false;
      try {
        await boss.getDb().executeSql('select 1 from pgboss.version');
        return true;
      } catch {
        return false;
      }
    },
    stop: async () => {
      if (isStopped) return;
      isStopped = true;
      dueJobs?.stop();
      await boss.stop({ graceful: true, timeout: 10_000 });
    },
  };
};
