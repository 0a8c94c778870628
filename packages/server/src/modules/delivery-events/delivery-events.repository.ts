import { sql } from 'kysely';
import type { Executor } from '../../platform/db';

/** The stored provider events (`provider_events`) waiting to be applied. */

/**
 * The oldest stored events not applied yet, locked so two apply runs side by side take
 * different ones (the second skips what the first holds).
 */
export const findPendingEvents = (trx: Executor, limit: number) =>
  trx
    .selectFrom('provider_events')
    .select(['id', 'payload', 'account_id'])
    .where('applied_at', 'is', null)
    .orderBy('created_at')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();

/** Marks events applied, in the transaction that applied them. */
export const markApplied = (trx: Executor, ids: string[]) =>
  sql`update provider_events set applied_at = now() where id = any(${ids}::text[])`.execute(trx);
