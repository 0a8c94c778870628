import { createHash } from 'node:crypto';
import pg from 'pg';
import { endQuietly } from './db';

/**
 * At most `limit` holders of a key at once, counted across every process of a deployment:
 * the verification probe's connections to one mail server, whichever job or worker opens
 * them (R36), so many users verifying one domain cannot get this server's address blocked.
 *
 * A slot is a session-level advisory lock on a connection this process keeps for its slots.
 * A process that dies (kill -9, a lost machine) loses that connection and PostgreSQL frees
 * its slots at once: none is ever leaked. A machine that vanishes without closing its
 * connection is noticed by TCP keepalives within about a minute. The locks use the two-int
 * key space, (SLOT_CLASS + slot number, hash of the key), apart from the bigint keys of
 * `presence.ts`, whose live-process check reads only those.
 */
export type TSlot = { readonly key: string; release: () => void };

export type TSlotPool = {
  /** A free slot of `key` now, or null when all `limit` are held (by this process or others). */
  tryTake: (key: string, limit: number) => Promise<TSlot | null>;
  /** A slot of `key`, waiting for one to be freed. */
  take: (key: string, limit: number, signal?: AbortSignal) => Promise<TSlot>;
  close: () => Promise<void>;
};

/** Advisory lock classes 0x5e1f0000 + slot number belong to these slots (a slot number < 65,536). */
const SLOT_CLASS = 0x5e1f0000;

/** A key's 32-bit lock id; two keys sharing one only share their slots (never more than the limit). */
const lockIdOf = (key: string) => createHash('sha256').update(key).digest().readInt32BE(0);

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** How often a waiting `take` asks again: soon at first, then at most every second. */
const WAIT_FIRST_MS = 25;
const WAIT_MAX_MS = 1_000;

/**
 * Slots kept in PostgreSQL. The connection opens on first use (a web process never opens
 * it). Every lock and unlock goes through it one at a time, in order: PostgreSQL's advisory
 * locks are re-entrant within a session, so this process keeps track of the slots it holds
 * and only ever asks for the others.
 */
export const createSharedSlots = (connectionString: string, onError: (error: Error) => void = () => {}): TSlotPool => {
  let client: Promise<pg.Client> | null = null;
  /** Bumped when the connection is lost: releases of slots taken before it are moot. */
  let generation = 0;
  const held = new Map<string, Set<number>>();
  let chain: Promise<unknown> = Promise.resolve();
  let isClosed = false;

  const forget = () => {
    client = null;
    generation += 1;
    held.clear();
  };

  const connect = () => {
    client ??= (async () => {
      const connection = new pg.Client({
        connectionString,
        application_name: 'sendwell-slots',
        keepAlive: true,
        keepAliveInitialDelayMillis: 10_000,
      });
      connection.on('error', (error) => {
        // The locks went with the session: whatever this process held is free for others now.
        forget();
        onError(error);
      });
      connection.on('end', forget);
      await connection.connect();
      // PostgreSQL's side of the same: a machine gone without a word frees its slots in ~1 minute.
      // Only a hint: a server that refuses the settings frees them at its own TCP timeout, and
      // the connection works the same; a connection that is broken fails the next query.
      await connection
        .query('set tcp_keepalives_idle = 30; set tcp_keepalives_interval = 10; set tcp_keepalives_count = 3')
        .catch(() => {});
      return connection;
    })().catch((error: unknown) => {
      client = null;
      throw error;
    });
    return client;
  };

  /** Runs `work` after everything asked before it, on the slots' connection. */
  const inTurn = <T>(work: (connection: pg.Client) => Promise<T>): Promise<T> => {
    const result = chain.then(async () => {
      if (isClosed) throw new Error('This process is stopping.');
      return work(await connect());
    });
    // The chain only keeps the order; `result` carries the failure to the one who asked.
    chain = result.catch(() => {});
    return result;
  };

  const release = (key: string, slot: number, takenIn: number) => {
    let isReleased = false;
    return () => {
      if (isReleased) return;
      isReleased = true;
      void inTurn(async (connection) => {
        if (takenIn !== generation) return;
        held.get(key)?.delete(slot);
        if (held.get(key)?.size === 0) held.delete(key);
        await connection.query('select pg_advisory_unlock($1::int, $2::int)', [SLOT_CLASS + slot, lockIdOf(key)]);
      }).catch((error: unknown) => onError(error as Error));
    };
  };

  const tryTake: TSlotPool['tryTake'] = (key, limit) =>
    inTurn(async (connection) => {
      const mine = held.get(key) ?? new Set<number>();
      if (mine.size >= limit) return null;
      // Slots in a random order: two processes asking at once rarely try the same one first.
      const free = Array.from({ length: limit }, (_, slot) => slot).filter((slot) => !mine.has(slot));
      for (let index = free.length - 1; index > 0; index--) {
        const other = Math.floor(Math.random() * (index + 1));
        [free[index], free[other]] = [free[other]!, free[index]!];
      }
      const lockId = lockIdOf(key);
      // One statement per slot: a single query's LIMIT is not guaranteed to stop PostgreSQL
      // from taking locks on rows it then does not return.
      for (const slot of free) {
        const { rows } = await connection.query<{ taken: boolean }>(
          'select pg_try_advisory_lock($1::int, $2::int) as taken',
          [SLOT_CLASS + slot, lockId],
        );
        if (rows[0]?.taken) {
          mine.add(slot);
          held.set(key, mine);
          return { key, release: release(key, slot, generation) };
        }
      }
      return null;
    });

  return {
    tryTake,
    take: async (key, limit, signal) => {
      for (let wait = WAIT_FIRST_MS; ; wait = Math.min(WAIT_MAX_MS, wait * 2)) {
        const slot = await tryTake(key, limit);
        if (slot) return slot;
        await sleep(wait / 2 + Math.random() * wait, signal);
      }
    },
    close: async () => {
      isClosed = true;
      const current = client;
      forget();
      await endQuietly(current);
    },
  };
};

/**
 * The same rule within one process, in memory: for the engine's own tests, which run
 * without a database. A deployment always uses `createSharedSlots`.
 */
export const createLocalSlots = (): TSlotPool => {
  const held = new Map<string, number>();
  const waiters = new Map<string, (() => void)[]>();
  const tryTakeNow = (key: string, limit: number): TSlot | null => {
    const count = held.get(key) ?? 0;
    if (count >= limit) return null;
    held.set(key, count + 1);
    let isReleased = false;
    return {
      key,
      release: () => {
        if (isReleased) return;
        isReleased = true;
        held.set(key, (held.get(key) ?? 1) - 1);
        waiters.get(key)?.shift()?.();
      },
    };
  };
  return {
    tryTake: async (key, limit) => tryTakeNow(key, limit),
    take: async (key, limit, signal) => {
      for (;;) {
        const slot = tryTakeNow(key, limit);
        if (slot) return slot;
        signal?.throwIfAborted();
        await new Promise<void>((resolve) => {
          const list = waiters.get(key) ?? [];
          list.push(resolve);
          waiters.set(key, list);
        });
      }
    },
    close: async () => {},
  };
};
