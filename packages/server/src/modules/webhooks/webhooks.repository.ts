import { sql } from 'kysely';
import type { Executor } from '../../platform/db';
import { countRows } from '../../platform/queries';

// --- endpoints ---

const ENDPOINT_COLUMNS = ['id', 'user_id', 'url', 'description', 'event_types', 'is_enabled', 'created_at'] as const;

/** The user's endpoints, with how many deliveries each has waiting. */
export const listEndpoints = (db: Executor, userId: number) =>
  db
    .selectFrom('webhook_endpoints as e')
    .select(ENDPOINT_COLUMNS.map((column) => `e.${column}` as const))
    .select(
      sql<number>`(select count(*)::int from webhook_deliveries d where d.endpoint_id = e.id and d.status = 'pending')`.as(
        'pending',
      ),
    )
    .where('e.user_id', '=', userId)
    .orderBy('e.id')
    .execute();

export type TEndpointRow = Awaited<ReturnType<typeof listEndpoints>>[number];

export const findEndpoint = (db: Executor, userId: number, endpointId: number) =>
  db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('user_id', '=', userId)
    .where('id', '=', endpointId)
    .executeTakeFirst();

/** An endpoint by id alone, for the delivery job (whose payload is the id). */
export const findEndpointById = (db: Executor, endpointId: number) =>
  db.selectFrom('webhook_endpoints').selectAll().where('id', '=', endpointId).executeTakeFirst();

export const countEndpoints = (db: Executor, userId: number) =>
  countRows(db.selectFrom('webhook_endpoints').where('user_id', '=', userId));

export const insertEndpoint = (
  db: Executor,
  row: { userId: number; url: string; description: string; events: string[]; isEnabled: boolean },
) =>
  db
    .insertInto('webhook_endpoints')
    .values({
      user_id: row.userId,
      url: row.url,
      description: row.description,
      event_types: row.events,
      is_enabled: row.isEnabled,
    })
    .returning('id')
    .executeTakeFirstOrThrow();

export const setEndpointSecret = (db: Executor, endpointId: number, secret: Buffer) =>
  db.updateTable('webhook_endpoints').set({ secret, updated_at: new Date() }).where('id', '=', endpointId).execute();

export const updateEndpoint = (
  db: Executor,
  userId: number,
  endpointId: number,
  row: { url: string; description: string; events: string[]; isEnabled: boolean },
) =>
  db
    .updateTable('webhook_endpoints')
    .set({
      url: row.url,
      description: row.description,
      event_types: row.events,
      is_enabled: row.isEnabled,
      updated_at: new Date(),
    })
    .where('user_id', '=', userId)
    .where('id', '=', endpointId)
    .executeTakeFirst();

/** Deletes an endpoint with its deliveries and their attempts (foreign keys cascade). */
export const deleteEndpoint = async (db: Executor, userId: number, endpointId: number) =>
  (
    await db
      .deleteFrom('webhook_endpoints')
      .where('user_id', '=', userId)
      .where('id', '=', endpointId)
      .executeTakeFirst()
  ).numDeletedRows > 0n;

// --- the queue ---

/**
 * Which event types these users' enabled endpoints take (`<user id>:<type>`): most events
 * have no taker, and are dropped before anything is built for them.
 */
export const findWantedTypes = async (db: Executor, userIds: number[]) =>
  new Set(
    (
      await sql<{ key: string }>`
        select distinct user_id || ':' || unnest(event_types) as key
          from webhook_endpoints where user_id = any(${userIds}::bigint[]) and is_enabled`.execute(db)
    ).rows.map((row) => row.key),
  );

export type TNewDelivery = { userId: number; eventId: string; type: string; orderingKey: string; payload: string };

/**
 * One delivery per event and endpoint of its user that takes its type, in the order the
 * events were given (ids follow it: the order each receiver sees per ordering key). Answers
 * the endpoints that got deliveries.
 */
export const insertDeliveries = async (db: Executor, events: TNewDelivery[]) => {
  const { rows } = await sql<{ endpoint_id: number }>`
    insert into webhook_deliveries (user_id, endpoint_id, event_id, type, ordering_key, payload)
    select e.user_id, e.id, ev.event_id, ev.type, ev.ordering_key, ev.payload
      from unnest(${events.map((event) => event.userId)}::bigint[], ${events.map((event) => event.eventId)}::text[],
                  ${events.map((event) => event.type)}::text[], ${events.map((event) => event.orderingKey)}::text[],
                  ${events.map((event) => event.payload)}::jsonb[])
           with ordinality as ev (user_id, event_id, type, ordering_key, payload, position)
      join webhook_endpoints e on e.user_id = ev.user_id and e.is_enabled and ev.type = any(e.event_types)
     order by ev.position, e.id
    returning endpoint_id`.execute(db);
  return [...new Set(rows.map((row) => Number(row.endpoint_id)))];
};

/** One delivery to one endpoint now (the "Send a test event" button): ordered behind nothing. */
export const insertTestDelivery = (db: Executor, endpoint: { id: number; user_id: number }, delivery: TNewDelivery) =>
  db
    .insertInto('webhook_deliveries')
    .values({
      user_id: endpoint.user_id,
      endpoint_id: endpoint.id,
      event_id: delivery.eventId,
      type: delivery.type,
      ordering_key: delivery.orderingKey,
      payload: delivery.payload,
    })
    .returning('id')
    .executeTakeFirstOrThrow();

export type TClaimedDelivery = {
  id: number;
  user_id: number;
  event_id: string;
  type: string;
  payload: unknown;
  attempts: number;
  created_at: Date;
};

/**
 * Takes up to `limit` deliveries of an endpoint to attempt now, under a lease: for each
 * ordering key only its first pending delivery (the head), and only when it is due and no
 * worker holds it. A key whose head waits for a retry waits as a whole, so a receiver gets
 * a member's events in order (R44). The lease's conditions sit on the row updated, so two
 * workers taking at once take each head once.
 */
export const claimDue = async (db: Executor, endpointId: number, leaseToken: string, leaseMs: number, limit: number) =>
  (
    await sql<TClaimedDelivery>`
      with due as (
        select d.id from webhook_deliveries d
         where d.endpoint_id = ${endpointId} and d.status = 'pending'
           and d.next_attempt_at <= now() and (d.leased_until is null or d.leased_until < now())
           and not exists (select 1 from webhook_deliveries earlier
                            where earlier.endpoint_id = d.endpoint_id and earlier.ordering_key = d.ordering_key
                              and earlier.status = 'pending' and earlier.id < d.id)
         order by d.id
         limit ${limit}
      )
      update webhook_deliveries d
         set lease_token = ${leaseToken}, leased_until = now() + ${leaseMs} * interval '1 millisecond',
             attempts = d.attempts + 1, updated_at = now()
        from due
       where d.id = due.id and d.status = 'pending' and (d.leased_until is null or d.leased_until < now())
      returning d.id, d.user_id, d.event_id, d.type, d.payload, d.attempts, d.created_at`.execute(db)
  ).rows.sort((a, b) => a.id - b.id);

/** Takes one delivery to attempt now (the test event), under a lease. */
export const claimOne = async (db: Executor, deliveryId: number, leaseToken: string, leaseMs: number) =>
  (
    await sql<TClaimedDelivery>`
      update webhook_deliveries
         set lease_token = ${leaseToken}, leased_until = now() + ${leaseMs} * interval '1 millisecond',
             attempts = attempts + 1, updated_at = now()
       where id = ${deliveryId} and status = 'pending'
      returning id, user_id, event_id, type, payload, attempts, created_at`.execute(db)
  ).rows[0];

export type TAttemptRecord = {
  id: number;
  userId: number;
  /** Delivered; or pending again at `nextAttemptAt`; or failed for good (both false/null). */
  isDelivered: boolean;
  nextAttemptAt: Date | null;
  statusCode: number | null;
  response: string;
  durationMs: number;
};

/**
 * Records the answers of a claim's attempts in one statement (one commit for the claim, not
 * one per delivery), each only while its lease is still this worker's, with the attempts
 * in the log. A crash before it leaves the leases to end: those deliveries go again (at
 * least once).
 */
export const settleAttempts = async (db: Executor, leaseToken: string, records: TAttemptRecord[]) => {
  if (records.length === 0) return 0;
  const column = <T>(pick: (record: TAttemptRecord) => T) => records.map(pick);
  const { rows } = await sql<{ id: number }>`
    with given as (
      select * from unnest(${column((record) => record.id)}::bigint[], ${column((record) => record.userId)}::bigint[],
                           ${column((record) => record.isDelivered)}::boolean[],
                           ${column((record) => record.nextAttemptAt?.toISOString() ?? null)}::timestamptz[],
                           ${column((record) => record.statusCode)}::int[], ${column((record) => record.response)}::text[],
                           ${column((record) => record.durationMs)}::int[])
             as g (id, user_id, is_delivered, next_attempt_at, status_code, response, duration_ms)
    ), settled as (
      update webhook_deliveries d
         set status = case when g.is_delivered then 'delivered' when g.next_attempt_at is null then 'failed' else 'pending' end,
             lease_token = null, leased_until = null, updated_at = now(),
             next_attempt_at = coalesce(g.next_attempt_at, d.next_attempt_at),
             delivered_at = case when g.is_delivered then now() else null end
        from given g
       where d.id = g.id and d.lease_token = ${leaseToken}
      returning d.id
    )
    insert into webhook_attempts (delivery_id, user_id, status_code, response, duration_ms)
    select g.id, g.user_id, g.status_code, g.response, g.duration_ms from given g join settled s on s.id = g.id
    returning delivery_id as id`.execute(db);
  return rows.length;
};

/**
 * Enabled endpoints with deliveries due and not held (the minute's sweep queues their jobs);
 * a disabled endpoint's wait until it is turned on again.
 */
export const findEndpointsDue = async (db: Executor) =>
  (
    await sql<{ endpoint_id: number }>`
      select distinct d.endpoint_id from webhook_deliveries d
        join webhook_endpoints e on e.id = d.endpoint_id and e.is_enabled
       where d.status = 'pending' and d.next_attempt_at <= now()
         and (d.leased_until is null or d.leased_until < now())`.execute(db)
  ).rows.map((row) => Number(row.endpoint_id));

/** When the endpoint's next delivery comes due (its earliest waiting one), or null. */
export const nextDueOf = async (db: Executor, endpointId: number) =>
  (
    await sql<{ at: Date | null }>`
      select min(next_attempt_at) as at from webhook_deliveries where endpoint_id = ${endpointId} and status = 'pending'`.execute(
      db,
    )
  ).rows[0]?.at ?? null;

// --- the log ---

export const countDeliveries = (db: Executor, userId: number, endpointId: number) =>
  countRows(db.selectFrom('webhook_deliveries').where('user_id', '=', userId).where('endpoint_id', '=', endpointId));

/** A page of an endpoint's deliveries, newest first, each with its attempts (at most 20, in order). */
export const pageDeliveries = async (db: Executor, userId: number, endpointId: number, limit: number, offset: number) =>
  (
    await sql<{
      id: number;
      event_id: string;
      type: string;
      status: 'pending' | 'delivered' | 'failed';
      created_at: Date;
      next_attempt_at: Date;
      attempts: { at: string; status_code: number | null; response: string; duration_ms: number }[];
    }>`
      select d.id, d.event_id, d.type, d.status, d.created_at, d.next_attempt_at,
             coalesce((select json_agg(json_build_object('at', a.created_at, 'status_code', a.status_code,
                                                         'response', a.response, 'duration_ms', a.duration_ms)
                                       order by a.id)
                         from (select * from webhook_attempts where delivery_id = d.id order by id desc limit 20) a),
                      '[]') as attempts
        from webhook_deliveries d
       where d.user_id = ${userId} and d.endpoint_id = ${endpointId}
       order by d.id desc
       limit ${limit} offset ${offset}`.execute(db)
  ).rows;

/** The hourly cleanup (R30): settled deliveries (and their attempts) older than the log keeps. */
export const pruneDeliveries = async (db: Executor, olderThanDays: number) =>
  Number(
    (
      await sql`
        delete from webhook_deliveries
         where id in (select id from webhook_deliveries
                       where status <> 'pending' and created_at < now() - ${olderThanDays} * interval '1 day'
                       limit 10000)`.execute(db)
    ).numAffectedRows ?? 0,
  );
