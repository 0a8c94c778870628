import { sql } from 'kysely';
import type { z } from 'zod';
import type { TPlatform } from '../src/platform/context';
import type { TJobDefinition } from '../src/platform/queue';

/**
 * Runs the queued jobs of a kind as a worker would (nothing runs them in tests until asked),
 * each job once however often it is called; answers how many it ran this time.
 */
export const queuedJobRunner = (platform: TPlatform) => {
  const ran = new Set<string>();
  return async <S extends z.ZodType>(job: TJobDefinition<S>) => {
    const rows = (
      await sql<{ id: string; data: unknown }>`select id, data from pgboss.job where name = ${job.name}`.execute(
        platform.db,
      )
    ).rows.filter((row) => !ran.has(row.id));
    for (const row of rows) {
      ran.add(row.id);
      await job.handler(job.schema.parse(row.data), platform, {
        jobId: row.id,
        retryCount: 0,
        signal: new AbortController().signal,
      });
    }
    return rows.length;
  };
};
