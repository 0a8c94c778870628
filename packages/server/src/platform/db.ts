import { Kysely, PostgresDialect, type Transaction } from 'kysely';
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

type TPoolOptions = {
  poolSize?: number;
  /** How long a caller waits for a free connection before the pool fails it (see isPoolExhausted); 0 waits forever. */
  acquireTimeoutMs?: number;
  /** PostgreSQL ends a session left idle inside a transaction this long; 0 never. */
  idleInTransactionTimeoutMs?: number;
  onError?: (error: Error) => void;
};

export const createDatabase = (
  url: string,
  {
    poolSize = 10,
    acquireTimeoutMs = 10_000,
    idleInTransactionTimeoutMs = 60_000,
    onError = () => {},
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
  let closed = false;
  return {
    db,
    pool,
    url,
    close: async () => {
      if (closed) return;
      closed = true;
      await db.destroy();
      // Kysely ends the pool only if it ever used it; migrations may have been the only user.
      if (!pool.ended) await pool.end();
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

/** pg-pool gave up waiting for a free connection (`connectionTimeoutMillis`). */
export const isPoolExhausted = (error: unknown): boolean =>
  error instanceof Error && error.message === 'timeout exceeded when trying to connect';

/** PostgreSQL refused a duplicate (23505), optionally on one named constraint or index. */
export const isUniqueViolation = (error: unknown, constraint?: string): boolean =>
  error instanceof Error &&
  (error as { code?: string }).code === '23505' &&
  (constraint === undefined || (error as { constraint?: string }).constraint === constraint);
