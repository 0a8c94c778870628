import { randomInt } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { type Executor, endQuietly } from './db';

/**
 * A process's proof of life, held in PostgreSQL: a session-level advisory lock on a random
 * key, on a connection of its own. Work a process claims (a send's recipients) carries
 * the key. When the process dies, by `kill -9` or a lost machine, PostgreSQL ends its
 * session and the lock is gone at once: other processes take the work over in seconds,
 * not after a lease of minutes. The lease stays as the fallback for a connection that
 * PostgreSQL has not yet seen die (a network partition).
 *
 * A living process can lose the connection too (PostgreSQL restarted, the session
 * terminated): the lock goes with it. The process connects again at once, with backoff
 * while PostgreSQL is away, and takes the same key again, so the claims it holds stay its
 * own (R38); reapers give claims made before a restart a grace to let that happen
 * (`delivery.repository.ts`). Only if its old session still holds the key (PostgreSQL has
 * not seen that connection die) does it go on under a new one.
 */
export type TPresence = {
  /** This process's key, connecting and taking the lock on first use (or after the connection was lost). */
  key: () => Promise<number>;
  /**
   * Every key this process has held: its claims under any of them are its own, never
   * abandoned in its own eyes, even while its connection is being restored.
   */
  ownKeys: () => number[];
  /**
   * Takes the lock now: a worker holds it from its start, so it counts as alive (Operator →
   * System) before it has sent anything; a lost connection takes it again at once.
   */
  hold: () => Promise<void>;
  close: () => Promise<void>;
};

/** How presence connections name themselves, so the processes alive can be counted apart from other locks. */
export const PRESENCE_APPLICATION_NAME = 'sendwell-presence';

/** Keys stay below 2^53: the driver reads bigint as a JavaScript number. */
const newKey = () => randomInt(1, 2 ** 47) * 64 + randomInt(0, 64);

/**
 * Waits between attempts to take the lock again: the first at once (a terminated session's
 * process is back within milliseconds), then 100 ms doubling up to 1 s while PostgreSQL is away.
 */
const RECONNECT_FIRST_MS = 0;
const RECONNECT_MAX_MS = 1_000;

type TPresenceOptions = {
  onError?: (error: Error) => void;
  /** The lock is held (first taken, or taken again after a lost connection), under `key`. */
  onTaken?: (key: number) => void;
};

export const createPresence = (
  connectionString: string,
  { onError = () => {}, onTaken = () => {} }: TPresenceOptions = {},
): TPresence => {
  let key = newKey();
  const ownKeys = [key];
  /** The session holding the lock, once taken; null while (re)connecting or lost. */
  let held: Promise<pg.Client> | null = null;
  let current: pg.Client | null = null;
  let isClosed = false;
  let retryTimer: NodeJS.Timeout | undefined;
  let retryMs = RECONNECT_FIRST_MS;

  const take = async () => {
    const client = new pg.Client({ connectionString, application_name: PRESENCE_APPLICATION_NAME });
    client.on('error', (error) => {
      onError(error);
      lost(client);
    });
    client.on('end', () => lost(client));
    try {
      await client.connect();
      for (;;) {
        const result = await client.query<{ taken: boolean }>('select pg_try_advisory_lock($1::bigint) as taken', [
          key,
        ]);
        if (result.rows[0]?.taken) break;
        // Held by our own earlier session that PostgreSQL still thinks alive: a new key for
        // what comes next; the claims under the old one keep that session's proof of life.
        key = newKey();
        ownKeys.push(key);
      }
    } catch (error) {
      await endQuietly(client);
      throw error;
    }
    if (isClosed) {
      await endQuietly(client);
      throw new Error('This process is stopping.');
    }
    current = client;
    onTaken(key);
    return client;
  };

  /** Takes the lock, once: concurrent callers share the attempt. */
  const ensure = () => {
    held ??= take().catch((error: unknown) => {
      held = null;
      scheduleRetry();
      throw error;
    });
    return held;
  };

  const scheduleRetry = () => {
    if (isClosed || retryTimer) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      ensure().then(
        () => {
          retryMs = RECONNECT_FIRST_MS;
        },
        () => {
          retryMs = Math.min(RECONNECT_MAX_MS, Math.max(100, retryMs * 2));
        },
      );
    }, retryMs);
    retryTimer.unref();
  };

  /** The session went away, and the lock with it: take it again at once, not at the next claim. */
  const lost = (client: pg.Client) => {
    if (client !== current) return;
    current = null;
    held = null;
    scheduleRetry();
  };

  return {
    key: async () => {
      if (isClosed) throw new Error('This process is stopping.');
      await ensure();
      return key;
    },
    hold: async () => {
      await ensure();
    },
    ownKeys: () => [...ownKeys],
    close: async () => {
      isClosed = true;
      clearTimeout(retryTimer);
      const session = held;
      held = null;
      current = null;
      await endQuietly(session);
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
