import { sql } from 'kysely';
import type { Executor } from './db';

export type TRateLimitResult = { isAllowed: boolean; retryAfterSeconds: number };

/**
 * Counts one hit against `key` in a fixed window and says whether it is still within
 * `limit`. The counter lives in PostgreSQL so every web process shares it; one upsert,
 * no read-then-write race.
 */
export const consumeRateLimit = async (
  executor: Executor,
  key: string,
  limit: number,
  windowSeconds: number,
): Promise<TRateLimitResult> => {
  const { rows } = await sql<{ hits: number; retry_after: number }>`
    insert into rate_limit_buckets as bucket (key, window_started_at, hits)
    values (${key}, now(), 1)
    on conflict (key) do update set
      hits = case when bucket.window_started_at <= now() - make_interval(secs => ${windowSeconds}) then 1 else bucket.hits + 1 end,
      window_started_at = case when bucket.window_started_at <= now() - make_interval(secs => ${windowSeconds}) then now() else bucket.window_started_at end
    returning hits,
      ceil(extract(epoch from (window_started_at + make_interval(secs => ${windowSeconds}) - now())))::int as retry_after
  `.execute(executor);
  const row = rows[0]!;
  return { isAllowed: row.hits <= limit, retryAfterSeconds: Math.max(1, row.retry_after) };
};

/** Forgets the hits on a key (a successful login clears its email's failures). */
export const resetRateLimit = async (executor: Executor, key: string) => {
  await executor.deleteFrom('rate_limit_buckets').where('key', '=', key).execute();
};

export const deleteExpiredRateLimits = (executor: Executor, olderThanSeconds = 86_400) =>
  executor
    .deleteFrom('rate_limit_buckets')
    .where('window_started_at', '<', sql<Date>`now() - make_interval(secs => ${olderThanSeconds})`)
    .executeTakeFirst();

type TMemoryBucket = { windowStartedAt: number; hits: number };

/**
 * The same fixed window, counted in this process's memory: for routes that take thousands
 * of requests a second from a signed caller (provider webhooks, tracking pixels), where a
 * database row per request would cost more than the work it guards. Each web process counts
 * on its own, so with N processes a caller gets up to N × limit.
 */
export const createMemoryRateLimiter = (maxKeys = 100_000) => {
  const buckets = new Map<string, TMemoryBucket>();
  return (key: string, limit: number, windowSeconds: number, now = Date.now()): TRateLimitResult => {
    const windowMs = windowSeconds * 1000;
    let bucket = buckets.get(key);
    if (!bucket || bucket.windowStartedAt <= now - windowMs) {
      // Forget expired windows before growing past the bound; a flood of new keys then starts over.
      if (!bucket && buckets.size >= maxKeys) {
        for (const [staleKey, stale] of buckets) if (stale.windowStartedAt <= now - windowMs) buckets.delete(staleKey);
        if (buckets.size >= maxKeys) buckets.clear();
      }
      bucket = { windowStartedAt: now, hits: 0 };
      buckets.set(key, bucket);
    }
    bucket.hits += 1;
    return {
      isAllowed: bucket.hits <= limit,
      retryAfterSeconds: Math.max(1, Math.ceil((bucket.windowStartedAt + windowMs - now) / 1000)),
    };
  };
};
