import { allJobs, moduleHooks } from '../modules';
import { createStripe } from '../providers/stripe';
import { hasWorker, type TConfig } from './config';
import type { TPlatform } from './context';
import { createCpuPool } from './cpu-pool';
import { createDatabase, isDatabaseShutdown, type TDatabase } from './db';
import { embeddedDatabaseOf, type TEmbeddedPostgres } from './embedded-postgres';
import { createLogger } from './logging';
import { createMailer } from './mailer';
import { migrate } from './migrations';
import { createPresence } from './presence';
import { startQueue } from './queue';
import { loadSecrets } from './secrets';
import { createSessionCache } from './session-cache';
import { createSharedSlots } from './shared-slots';

export type TOpenPlatform = {
  platform: TPlatform;
  database: TDatabase;
  embedded: TEmbeddedPostgres | undefined;
  /**
   * The first step of a stop: `platform.stopping` is aborted and the queue fetches no new
   * job, while the jobs running wind down (a dispatch run settles what it has in hand and
   * hands the rest on). Idempotent; `close` calls it too.
   */
  beginStop: () => void;
  /**
   * Waits for the running jobs (at most 10 s), stops the queue, closes the pools and, if
   * this process started it, PostgreSQL.
   */
  close: () => Promise<void>;
};

/**
 * Everything a Sendwell process needs before it serves or works: the database (embedded
 * unless DATABASE_URL is set), migrations, the job queue and the shared pieces.
 */
export const openPlatform = async (
  config: TConfig,
  log = createLogger(config.logLevel),
  { adoptOrphanDatabase = true }: { adoptOrphanDatabase?: boolean } = {},
): Promise<TOpenPlatform> => {
  const embedded = await embeddedDatabaseOf(config, {
    adoptOrphan: adoptOrphanDatabase,
    log: (message) => log.debug({ component: 'postgres' }, message),
  });
  const url = config.databaseUrl ?? embedded!.url;
  const database = createDatabase(url, {
    poolSize: config.dbPoolSize,
    acquireTimeoutMs: config.dbAcquireTimeoutMs,
    idleInTransactionTimeoutMs: config.dbIdleInTransactionTimeoutMs,
    onError: (error) =>
      isDatabaseShutdown(error)
        ? log.info('database is shutting down; idle connection closed')
        : log.warn({ err: error }, 'idle database connection failed'),
  });
  try {
    const applied = await migrate(database.pool);
    if (applied.length > 0) log.info({ applied }, 'migrations applied');
    const queue = await startQueue({
      url,
      jobs: allJobs,
      isWorker: hasWorker(config.role),
      onError: (error) =>
        isDatabaseShutdown(error)
          ? log.info('database is shutting down; job queue connection closed')
          : log.error({ err: error }, 'job queue error'),
    });
    const stopping = new AbortController();
    const platform: TPlatform = {
      config,
      db: database.db,
      checkpointDb: database.checkpointDb,
      checkpointPool: database.checkpointPool,
      pool: database.pool,
      queue,
      secrets: loadSecrets(config.secretKey, config.dataDir),
      mailer: createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, log, isLocalRun: embedded !== undefined }),
      sessionCache: createSessionCache(),
      stripe: config.stripe ? await createStripe(config.stripe) : null,
      log,
      hooks: moduleHooks,
      presence: createPresence(url, {
        onError: (error) =>
          isDatabaseShutdown(error)
            ? log.info('database is shutting down; presence connection closed')
            : log.warn({ err: error }, 'presence connection lost; taking the same key again'),
        // Which process holds which claims (send_claims.worker_key), for whoever reads the logs.
        onTaken: (key) => log.info({ presenceKey: key }, 'presence lock taken'),
      }),
      sharedSlots: createSharedSlots(url, (error) =>
        isDatabaseShutdown(error)
          ? log.info('database is shutting down; shared slots connection closed')
          : log.warn({ err: error }, 'shared slots connection lost; the slots it held are free again'),
      ),
      stopping: stopping.signal,
      cpu: createCpuPool({ threads: config.messageWork.threads, maxQueue: 64, memoryMb: 256 }),
    };
    let queueStopped: Promise<void> | undefined;
    const beginStop = () => {
      if (queueStopped) return;
      stopping.abort();
      // Graceful: no new job is fetched from now on; the running ones are awaited (those that
      // watch `stopping` end within the time of what they hold in hand), then the queue closes.
      queueStopped = queue.stop().catch((error) => log.warn({ err: error }, 'queue stop failed'));
    };
    return {
      platform,
      database,
      embedded,
      beginStop,
      close: async () => {
        // Each step logged with the time since the stop began: a slow stop says what it waited for (B13).
        const startedAt = Date.now();
        const done = (step: string) => log.info({ ms: Date.now() - startedAt }, `stopping: ${step}`);
        beginStop();
        await queueStopped;
        done('job queue stopped');
        await platform.cpu.close();
        await platform.presence.close();
        await platform.sharedSlots.close();
        done('CPU pool, presence and shared slots closed');
        await database.close();
        await embedded?.stop();
        done('database closed');
      },
    };
  } catch (error) {
    await database.close();
    await embedded?.stop();
    throw error;
  }
};
