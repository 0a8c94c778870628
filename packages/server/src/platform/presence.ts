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
  /**
   * Takes the lock now and keeps it taken: after a lost connection it is taken again within
   * seconds rather than at the next claim. A worker holds it from its start, so it counts as
   * alive (Operator → System) before it has sent anything.
   */
  hold: () => Promise<void>;
  close: () => Promise<void>;
};

/** Retries of a held lock whose connection was lost: from 1 s, doubling, at most 30 s apart. */
const RETAKE_FIRST_MS = 1_000;
const RETAKE_MAX_MS = 30_000;

/** How presence connections name themselves, so the processes alive can be counted apart from other locks. */
export const PRESENCE_APPLICATION_NAME = 'sendwell-presence';

/** Keys stay below 2^53: the driver reads bigint as a JavaScript number. */
const newKey = () => randomInt(1, 2 ** 47) * 64 + randomInt(0, 64);

export const createPresence = (connectionString: string, onError: (error: Error) => void = () => {}): TPresence => {
  let held: Promise<{ client: pg.Client; key: number }> | null = null;
  let isClosed = false;
  let isHolding = false;
  let retakeTimer: NodeJS.Timeout | null = null;

  const retake = (delayMs: number) => {
    if (!isHolding || isClosed || retakeTimer) return;
    retakeTimer = setTimeout(() => {
      retakeTimer = null;
      if (isClosed) return;
      ensure().catch(() => retake(Math.min(delayMs * 2, RETAKE_MAX_MS)));
    }, delayMs);
    retakeTimer.unref();
  };

  const take = async () => {
    const client = new pg.Client({ connectionString, application_name: PRESENCE_APPLICATION_NAME });
    client.on('error', (error) => {
      // The lock went with the connection: the next claim takes a new one.
      held = null;
      onError(error);
      retake(RETAKE_FIRST_MS);
    });
    client.on('end', () => {
      held = null;
      retake(RETAKE_FIRST_MS);
    });
    await client.connect();
    for (;;) {
      const key = newKey();
      const result = await client.query<{ taken: boolean }>('select pg_try_advisory_lock($1::bigint) as taken', [key]);
      if (result.rows[0]?.taken) return { client, key };
    }
  };

  const ensure = async () => {
    if (isClosed) throw new Error('This process is stopping.');
    held ??= take().catch((error: unknown) => {
      held = null;
      throw error;
    });
    return (await held).key;
  };

  return {
    key: ensure,
    hold: async () => {
      isHolding = true;
      await ensure();
    },
    close: async () => {
      isClosed = true;
      if (retakeTimer) clearTimeout(retakeTimer);
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

/**
 * How many processes hold a presence lock now: the workers alive (a worker takes its lock
 * when it starts). Other advisory locks (migrations, the drip scheduler's per-account lock)
 * are held by other connections and not counted.
 */
export const countLiveProcesses = async (executor: Executor) =>
  (
    await sql<{ alive: number }>`
      select count(distinct l.pid)::int as alive
        from pg_locks l join pg_stat_activity a on a.pid = l.pid
       where l.locktype = 'advisory' and l.objsubid = 1 and l.granted
         and l.database = (select oid from pg_database where datname = current_database())
         and a.application_name = ${PRESENCE_APPLICATION_NAME}`.execute(executor)
  ).rows[0]?.alive ?? 0;
