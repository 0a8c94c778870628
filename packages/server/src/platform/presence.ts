import { randomInt } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import type { Executor } from './db';

/**
 * A process's proof of life, held in PostgreSQL: a session-level advisory lock on a random
 * key, on a connection of its own. Work a process claims (a send's recipients) carries
 * the key. When the process dies, by `kill -9` or a lost machine, PostgreSQL ends its
 * session and the lock is gone at once: other processes take the work over in seconds,
 * not after a lease of minutes. The lease stays as the fallback for a connection that
 * PostgreSQL has not yet seen die (a network partition).
 */
export type TPresence = {
  /** This process's key, connecting and taking the lock on first use (or after the connection was lost). */
  key: () => Promise<number>;
  close: () => Promise<void>;
};

/** Keys stay below 2^53: the driver reads bigint as a JavaScript number. */
const newKey = () => randomInt(1, 2 ** 47) * 64 + randomInt(0, 64);

export const createPresence = (connectionString: string, onError: (error: Error) => void = () => {}): TPresence => {
  let held: Promise<{ client: pg.Client; key: number }> | null = null;
  let isClosed = false;

  const take = async () => {
    const client = new pg.Client({ connectionString, application_name: 'sendwell-presence' });
    client.on('error', (error) => {
      // The lock went with the connection: the next claim takes a new one.
      held = null;
      onError(error);
    });
    client.on('end', () => {
      held = null;
    });
    await client.connect();
    for (;;) {
      const key = newKey();
      const result = await client.query<{ taken: boolean }>('select pg_try_advisory_lock($1::bigint) as taken', [key]);
      if (result.rows[0]?.taken) return { client, key };
    }
  };

  return {
    key: async () => {
      if (isClosed) throw new Error('This process is stopping.');
      held ??= take().catch((error: unknown) => {
        held = null;
        throw error;
      });
      return (await held).key;
    },
    close: async () => {
      isClosed = true;
      const current = held;
      held = null;
      if (current) await (await current.catch(() => null))?.client.end().catch(() => {});
    },
  };
};

/**
 * The keys of the processes alive now: the advisory locks held in this database. A claim
 * whose key is not among them belongs to a process that is gone.
 */
export const liveKeys = sql<number>`
  select (l.classid::bigint << 32) | l.objid::bigint
    from pg_locks l
   where l.locktype = 'advisory' and l.objsubid = 1 and l.granted
     and l.database = (select oid from pg_database where datname = current_database())`;

/** Whether a process with this key is alive (its lock is held). */
export const isAlive = async (executor: Executor, key: number) =>
  (await sql<{ alive: boolean }>`select ${key}::bigint in (${liveKeys}) as alive`.execute(executor)).rows[0]?.alive ===
  true;
