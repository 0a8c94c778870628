import { sql } from 'kysely';
import type { Executor } from '../../platform/db';
import type { DeliveryEventsTable, TDeliveryEventType } from '../../platform/db-schema';

/**
 * Delivery events: one provider-neutral record of what happened to each message
 * (`delivery_events`; DESIGN §6), kept by the engine whose messages they are. Written in the
 * statement or transaction that changes the recipient's state, so the record and the state
 * never disagree: the engine's own outcomes as dispatch settles them (`eventsOfSettled`), and
 * what the outside world says later (provider webhooks, bounces, opens, clicks,
 * unsubscribes) through the delivery-events module, whose one entry point calls
 * `insertDeliveryEvents`. Per account and day they are counted by the table's statement
 * trigger (`account_daily_stats`, the reports' counters), once per statement.
 */
export type TNewDeliveryEvent = {
  userId: number;
  accountId: number | null;
  sendId: number | null;
  recipientId: number | null;
  email: string;
  type: TDeliveryEventType;
  severity?: DeliveryEventsTable['severity'];
  source: DeliveryEventsTable['source'];
  /** The provider's id of the event: recorded once however often it arrives (R10). */
  providerEventId?: string | null;
  detail?: string | null;
  linkId?: number | null;
  occurredAt?: Date;
  /** The recipient's first event of its kind (default): a repeated open or click is not, and moves no figure. */
  isFirst?: boolean;
};

/** Provider text kept per event (an SMTP answer or DSN can run to kilobytes; R30). */
export const DETAIL_LIMIT = 1000;

export const clipDetail = (text: string | null | undefined) => (text ? text.slice(0, DETAIL_LIMIT) : null);

/**
 * Records events in one statement; an event whose provider id is already recorded is
 * skipped (R10). Answers, for each event given, whether it was recorded now: the caller
 * applies what an event means only once (a retried webhook, a bounce delivered twice).
 * Events of one provider id given twice in one call are recorded once, the first new.
 */
export const insertDeliveryEvents = async (executor: Executor, events: TNewDeliveryEvent[]): Promise<boolean[]> => {
  if (events.length === 0) return [];
  const keyOf = (event: TNewDeliveryEvent) =>
    event.providerEventId ? `${event.source}\u0000${event.providerEventId}` : null;
  // Within one call only the first of a provider id is offered: both would look new.
  const offered = new Set<string>();
  const isOffered = events.map((event) => {
    const key = keyOf(event);
    if (key === null) return true;
    if (offered.has(key)) return false;
    offered.add(key);
    return true;
  });
  const given = events.filter((_, index) => isOffered[index]);
  const column = <T>(pick: (event: TNewDeliveryEvent) => T) => given.map(pick);
  const inserted = await sql<{ source: string; provider_event_id: string | null }>`
    insert into delivery_events (user_id, account_id, send_id, recipient_id, email, type, severity, source,
                                 provider_event_id, detail, link_id, occurred_at, is_first)
    select * from unnest(
      ${column((event) => event.userId)}::bigint[], ${column((event) => event.accountId)}::bigint[],
      ${column((event) => event.sendId)}::bigint[], ${column((event) => event.recipientId)}::bigint[],
      ${column((event) => event.email)}::text[], ${column((event) => event.type)}::text[],
      ${column((event) => event.severity ?? null)}::text[], ${column((event) => event.source)}::text[],
      ${column((event) => event.providerEventId ?? null)}::text[], ${column((event) => clipDetail(event.detail))}::text[],
      ${column((event) => event.linkId ?? null)}::bigint[],
      ${column((event) => (event.occurredAt ?? new Date()).toISOString())}::timestamptz[],
      ${column((event) => event.isFirst ?? true)}::boolean[])
    on conflict (source, provider_event_id) where provider_event_id is not null do nothing
    returning source, provider_event_id`.execute(executor);
  const recorded = new Set(
    inserted.rows.flatMap((row) => (row.provider_event_id ? [`${row.source}\u0000${row.provider_event_id}`] : [])),
  );
  return events.map((event, index) => {
    if (!isOffered[index]) return false;
    const key = keyOf(event);
    return key === null || recorded.has(key);
  });
};

/**
 * Which of these provider event ids are recorded already (per source): the intake applies
 * an event's meaning only for one not seen before (R10). A concurrent first copy is caught
 * again by the insert's conflict; the state changes are idempotent per recipient anyway.
 */
export const findRecordedProviderIds = async (
  executor: Executor,
  keys: { source: string; providerEventId: string }[],
): Promise<Set<string>> => {
  if (keys.length === 0) return new Set();
  const rows = await sql<{ source: string; provider_event_id: string }>`
    select e.source, e.provider_event_id
      from unnest(${keys.map((key) => key.source)}::text[], ${keys.map((key) => key.providerEventId)}::text[])
           as given (source, provider_event_id)
      join delivery_events e on e.source = given.source and e.provider_event_id = given.provider_event_id`.execute(
    executor,
  );
  return new Set(rows.rows.map((row) => `${row.source}\u0000${row.provider_event_id}`));
};

/**
 * The insert of one event per row a settle statement changed, for a CTE named `settled`
 * that returns `id, send_id, user_id, email`: the recipient's new state and its event go
 * in one statement, so a worker killed between them cannot leave one without the other.
 */
export const eventsOfSettled = ({
  accountId,
  type,
  severity = null,
  source,
  detail = null,
}: {
  accountId: number | null;
  type: TDeliveryEventType | ReturnType<typeof sql>;
  severity?: DeliveryEventsTable['severity'] | ReturnType<typeof sql>;
  source: DeliveryEventsTable['source'];
  detail?: string | null;
}) => sql`
  insert into delivery_events (user_id, account_id, send_id, recipient_id, email, type, severity, source, detail)
  select settled.user_id, ${accountId}::bigint, settled.send_id, settled.id, settled.email, ${type}, ${severity},
         ${source}, ${clipDetail(detail)}
    from settled`;
