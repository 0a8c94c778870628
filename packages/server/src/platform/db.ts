import { createHash } from 'node:crypto';
import { Kysely, PostgresDialect, type RawBuilder, type Transaction } from 'kysely';
import pg from 'pg';
import type { Database } from './db-schema';

// bigint ids fit well inside Number.MAX_SAFE_INTEGER; the spec's ids are numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number.parseInt(value, 10));
// numeric stays a string (money) unless a query casts it.

export type Db = Kysely<Database>;
/** What repositories take: the database, or the transaction a service opened. */
export type Executor = Kysely<Database> | Transaction<Database>;

export type TDatabase = {
  db: Db;
  pool: pg.Pool;
  /**
   * A second, small pool whose sessions commit without waiting for the disk
   * (`synchronous_commit = off`): the delivery engine's checkpoints go through it (~1.4×
   * the messages a second). A worker that dies loses none of them, they are in PostgreSQL
   * already; only a crash of PostgreSQL itself can lose the last fraction of a second. Being
   * a pool, it replaces a connection PostgreSQL ended (a restart, `pg_terminate_backend`) on
   * the next statement, so a dispatch run outlives a database blip.
   */
  checkpointDb: Db;
  /** The pool under `checkpointDb`, for statements run by name (`runPrepared`). */
  checkpointPool: pg.Pool;
  url: string;
  close: () => Promise<void>;
};

/**
 * A pg Client class that always has an 'error' listener. pg-pool listens for errors only
 * while a client is idle; a checked-out client whose server goes away (PostgreSQL
 * restarting or stopping) between two queries would emit 'error' to nobody, which Node
 * turns into a process exit. The pool still discards the broken client when it returns.
 * Used for our pool and handed to pg-boss's (`Client` is a pg.Pool option).
 */
export const guardedClient = (onError: (error: Error) => void): typeof pg.Client =>
  class GuardedClient extends pg.Client {
    constructor(config?: string | pg.ClientConfig) {
      super(config);
      this.on('error', onError);
    }
  };

/**
 * Ends a connection being given up (it failed, or its process is stopping). Ending it fails
 * only when the connection is broken already, which is what ending it was for: there is
 * nothing to report. A `pending` connection that never came up has nothing to end.
 */
export const endQuietly = async (
  connection: { end(): Promise<void> } | Promise<{ end(): Promise<void> }> | null | undefined,
) => {
  // A connection that never came up failed where it was opened, and said so there.
  const client = await Promise.resolve(connection).catch(() => null);
  await client?.end().catch(() => {});
};

type TPoolOptions = {
  poolSize?: number;
  /** How long a caller waits for a free connection before the pool fails it (see isPoolExhausted); 0 waits forever. */
  acquireTimeoutMs?: number;
  /** PostgreSQL ends a session left idle inside a transaction this long; 0 never. */
  idleInTransactionTimeoutMs?: number;
  onError?: (error: Error) => void;
  /** Connections of the checkpoint pool (`checkpointDb`), opened only when used. */
  checkpointPoolSize?: number;
};

export const createDatabase = (
  url: string,
  {
    poolSize = 10,
    acquireTimeoutMs = 10_000,
    idleInTransactionTimeoutMs = 60_000,
    onError = () => {},
    checkpointPoolSize = 2,
  }: TPoolOptions = {},
): TDatabase => {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    idleTimeoutMillis: 30_000,
    // Without it a request queues for a connection forever while others hold them all
    // (slow uploads, a stuck transaction); with it, it answers 503 and the client may retry.
    connectionTimeoutMillis: acquireTimeoutMs,
    // A transaction whose caller stopped talking (awaiting a slow client, a crashed
    // handler's leaked client) would hold its connection and row locks indefinitely;
    // PostgreSQL ends such a session and the pool replaces the connection.
    idle_in_transaction_session_timeout: idleInTransactionTimeoutMs,
    Client: guardedClient(onError),
  });
  pool.on('error', onError);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const checkpointPool = new pg.Pool({
    connectionString: url,
    max: checkpointPoolSize,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: acquireTimeoutMs,
    idle_in_transaction_session_timeout: idleInTransactionTimeoutMs,
    // A session setting, not a `set local` per statement: a checkpoint stays one round trip.
    options: '-c synchronous_commit=off',
    Client: guardedClient(onError),
  });
  checkpointPool.on('error', onError);
  const checkpointDb = new Kysely<Database>({ dialect: new PostgresDialect({ pool: checkpointPool }) });
  let closed = false;
  return {
    db,
    pool,
    checkpointDb,
    checkpointPool,
    url,
    close: async () => {
      if (closed) return;
      closed = true;
      await checkpointDb.destroy();
      await db.destroy();
      // Kysely ends a pool only if it ever used it; migrations may have been the only user.
      if (!pool.ended) await pool.end();
      if (!checkpointPool.ended) await checkpointPool.end();
    },
  };
};

/**
 * PostgreSQL closing our connections because it is shutting down (57P01 admin_shutdown,
 * 57P02 crash_shutdown, 57P03 cannot_connect_now). On Ctrl-C the terminal signals the
 * embedded server too, so these arrive during every ordinary stop: expected, not errors.
 */
export const isDatabaseShutdown = (error: unknown): boolean =>
  ['57P01', '57P02', '57P03'].includes((error as { code?: string } | undefined)?.code ?? '');

/**
 * The connection to PostgreSQL was lost, or could not be made, rather than a statement
 * being refused: the server restarting or shutting down (57P01–57P03), any connection
 * exception (class 08), a socket that closed or was refused, a client the driver has
 * given up on. The statement may or may not have committed, so only a statement that is
 * harmless to run twice (fenced, idempotent) may simply be run again.
 */
export const isConnectionLost = (error: unknown): boolean => {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: string }).code ?? '';
  if (isDatabaseShutdown(error) || code.startsWith('08')) return true;
  if (['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTCONN'].includes(code)) return true;
  return /Connection terminated|connection error and is not queryable|Client was closed and is not queryable/i.test(
    error.message,
  );
};

/**
 * Runs `work`, and again while PostgreSQL cannot be reached (a restart, terminated
 * connections; see isConnectionLost), waiting a little longer each time (100 ms up to
 * 2 s), until `until` (ms since the epoch): then the last error is thrown. Any other error
 * is thrown at once. `work` must be safe to run twice: the lost attempt may have committed.
 */
export const retryWhileDisconnected = async <T>(
  work: () => Promise<T>,
  { until, onRetry }: { until: number; onRetry?: (error: unknown) => void },
): Promise<T> => {
  let waitMs = 100;
  for (;;) {
    try {
      return await work();
    } catch (error) {
      if (!(isConnectionLost(error) || isPoolExhausted(error)) || Date.now() + waitMs > until) throw error;
      onRetry?.(error);
      await new Promise((resolve) => setTimeout(resolve, waitMs));
      waitMs = Math.min(2_000, waitMs * 2);
    }
  }
};

/** pg-pool gave up waiting for a free connection (`connectionTimeoutMillis`). */
export const isPoolExhausted = (error: unknown): boolean =>
  error instanceof Error && error.message === 'timeout exceeded when trying to connect';

/** PostgreSQL refused a duplicate (23505), optionally on one named constraint or index. */
export const isUniqueViolation = (error: unknown, constraint?: string): boolean =>
  error instanceof Error &&
  (error as { code?: string }).code === '23505' &&
  (constraint === undefined || (error as { constraint?: string }).constraint === constraint);

/**
 * Runs a statement by name, so each connection parses and plans it once and afterwards
 * only binds and executes it: for a short statement run thousands of times a second (the
 * delivery engine's journal) the planning costs PostgreSQL as much as the work. Kysely
 * cannot name a statement, so the query is compiled by `db` and run on `pool` (the pool
 * under it); its name is a digest of its text, one prepared statement per shape.
 */
export const runPrepared = async <Row>(pool: pg.Pool, db: Db, query: RawBuilder<Row>) => {
  const { sql: text, parameters } = query.compile(db);
  const name = `prepared-${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
  const result = await pool.query({ name, text, values: parameters as unknown[] });
  return result.rows as Row[];
};
