import { fromKysely, type Job, PgBoss, type QueueOptions } from 'pg-boss';
import type { z } from 'zod';
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
  /** The queue's options; `notify: false` for a queue polled every 2 s rather than woken by NOTIFY. */
  queue?: QueueOptions & { notify?: boolean };
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

  return {
    boss,
    enqueue: (job, data, options = {}) => {
      if (!byName.has(job.name)) throw new Error(`Job ${job.name} is not registered with the queue.`);
      return boss.send(job.name, data as object, {
        startAfter: options.startAfter,
        singletonKey: options.singletonKey,
        ...(options.executor ? { db: fromKysely(options.executor) } : {}),
      });
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
      await boss.stop({ graceful: true, timeout: 10_000 });
    },
  };
};
