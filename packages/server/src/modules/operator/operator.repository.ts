import { sql } from 'kysely';
import type { Executor } from '../../platform/db';

export type TAuditEntry = {
  /** Null for the admin CLI, which acts as whoever runs it on the server. */
  operatorId: number | null;
  operatorEmail: string;
  action: string;
  targetType: string;
  targetId: string | number | null;
  details?: Record<string, unknown>;
};

export const insertAudit = (db: Executor, entry: TAuditEntry) =>
  db
    .insertInto('audit_log')
    .values({
      operator_id: entry.operatorId,
      operator_email: entry.operatorEmail,
      action: entry.action,
      target_type: entry.targetType,
      target_id: entry.targetId === null ? null : String(entry.targetId),
      details: JSON.stringify(entry.details ?? {}),
    })
    .execute();

export const selectAudit = (db: Executor) =>
  db
    .selectFrom('audit_log')
    .select(['id', 'operator_email', 'action', 'target_type', 'target_id', 'details', 'created_at']);

/** Jobs per queue and state (pg-boss's table), for the system page. */
export const queueCounts = async (db: Executor) =>
  (
    await sql<{ name: string; queued: number; active: number; failed: number }>`
      select name,
             count(*) filter (where state in ('created', 'retry'))::int as queued,
             count(*) filter (where state = 'active')::int as active,
             count(*) filter (where state = 'failed')::int as failed
        from pgboss.job
       group by name
       order by name`.execute(db)
  ).rows;

export const lastFailures = async (db: Executor, limit: number) =>
  (
    await sql<{ name: string; completed_on: Date | null; output: unknown }>`
      select name, completed_on, output from pgboss.job
       where state = 'failed'
       order by completed_on desc nulls last
       limit ${limit}`.execute(db)
  ).rows;

export const databaseSize = async (db: Executor) =>
  Number(
    (await sql<{ size: string }>`select pg_database_size(current_database()) as size`.execute(db)).rows[0]?.size ?? 0,
  );
