import { sql } from 'kysely';
import type pg from 'pg';
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

/** A verified webhook event to store: its replay token, its id, what is kept of it. */
export type TWebhookRecord = { accountId: number; token: string; eventId: string; payload: string };

/**
 * Records each token with its event and stores each event whose token is bound to it,
 * unless its id already is (R9, R10, R31): one statement, so one commit for the group.
 * Tokens must be distinct (a token twice in one statement would be "new" for both).
 * Answers the event id each token is bound to (its own event's, or the one it first came
 * with: a replay) and whether any event is new.
 *
 * A known token's row is "updated" to itself: that locks it (a concurrent first delivery
 * commits before a retry reads it) and returns the event it is bound to; new tokens are
 * plain inserts. Rows are locked in token order, then event-id order, and every token is
 * written before any event (the sort consumes `bound` whole), so two statements storing
 * overlapping groups, in one process or two, wait for each other instead of deadlocking.
 *
 * A named (prepared) statement, through the pool rather than Kysely, which cannot name
 * one: parsing and planning this statement cost PostgreSQL as much as writing 16 events
 * (B8: 159 against 109 µs of the backend's CPU an event in groups of 16).
 */
export const storeWebhookEvents = async (pool: pg.Pool, records: TWebhookRecord[]) => {
  const sorted = [...records].sort((left, right) => (left.token < right.token ? -1 : 1));
  const { rows } = await pool.query<{ token: string; event_id: string | null; has_new_events: boolean }>({
    name: 'store-webhook-events',
    text: `
      with incoming as (
        select * from unnest($1::text[], $2::bigint[], $3::text[], $4::text[])
          as incoming (token, account_id, event_id, payload)
      ), bound as (
        insert into webhook_tokens (token, event_id) select token, event_id from incoming order by token
        on conflict (token) do update set event_id = webhook_tokens.event_id
        returning token, event_id
      ), event as (
        insert into provider_events (id, account_id, payload)
        select incoming.event_id, incoming.account_id, incoming.payload::jsonb
          from incoming join bound on bound.token = incoming.token and bound.event_id = incoming.event_id
         order by incoming.event_id
        on conflict (id) do nothing
        returning id
      )
      select token, event_id, exists (select from event) as has_new_events from bound`,
    values: [
      sorted.map((record) => record.token),
      sorted.map((record) => record.accountId),
      sorted.map((record) => record.eventId),
      sorted.map((record) => record.payload),
    ],
  });
  return {
    boundEventIds: new Map(rows.map((row) => [row.token, row.event_id])),
    hasNewEvents: rows[0]?.has_new_events ?? false,
  };
};
