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

export const createDatabase = (
  url: string,
  { poolSize = 10, onError }: { poolSize?: number; onError?: (error: Error) => void } = {},
): TDatabase => {
  const pool = new pg.Pool({ connectionString: url, max: poolSize, idleTimeoutMillis: 30_000 });
  // An idle client losing its server (PostgreSQL restarting) must not crash the process.
  pool.on('error', (error) => onError?.(error));
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
