import {
  addFigures,
  bouncedOf,
  emptyFigures,
  ratesOf,
  safeCell,
  type TDashboard,
  type TFigures,
  type ZDeliveryEventQuery,
} from '@sendwell/contracts';
import { stringify } from 'csv-stringify/sync';
import { sql } from 'kysely';
import type { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import type { Executor } from '../../platform/db';
import { paginate } from '../../platform/paging';
import { findAccountKinds } from '../accounts/accounts.service';
import { timeZoneOf } from '../auth/auth.service';
import { selectUserEvents } from '../delivery/delivery.service';

/**
 * The delivery dashboard (spec §2 Delivery dashboard): read from the per-account, per-day
 * counters the delivery-event trigger keeps (`account_daily_stats`, this module's table), so
 * it answers in a few milliseconds however many events there are (B11); the event table
 * pages the engine's delivery events (through the delivery service) on their (user, time) index.
 */

const DAYS = 30;

/** One day's figures (contracts `figures.ts`), as the trigger on delivery_events keeps them. */
type TDay = TFigures & { day: string };

const dailyFigures = async (db: Executor, userId: number): Promise<TDay[]> =>
  (
    await sql<TDay>`
      -- The counters' days are the user's (the trigger dates events in their time zone).
      with today as (
        select (now() at time zone ${await timeZoneOf(db, userId)})::date as day
      ), days as (
        select (today.day - offs)::date as day from today, generate_series(0, ${DAYS - 1}) as offs
      )
      select to_char(days.day, 'YYYY-MM-DD') as day,
             coalesce(sum(s.recipients), 0)::int as recipients, coalesce(sum(s.accepted), 0)::int as accepted,
             coalesce(sum(s.delivered), 0)::int as delivered, coalesce(sum(s.deferred), 0)::int as deferred,
             coalesce(sum(s.bounced_hard), 0)::int as "bouncedHard", coalesce(sum(s.bounced_soft), 0)::int as "bouncedSoft",
             coalesce(sum(s.complained), 0)::int as complained, coalesce(sum(s.unsubscribed), 0)::int as unsubscribed,
             coalesce(sum(s.opened), 0)::int as opened, coalesce(sum(s.clicked), 0)::int as clicked,
             coalesce(sum(s.unknown), 0)::int as unknown
        from days
        left join account_daily_stats s on s.user_id = ${userId} and s.day = days.day
       group by days.day
       order by days.day`.execute(db)
  ).rows;

/**
 * The dashboard's figures, read as every screen reads them (R33, contracts `figures.ts`):
 * recipients each once, a bounce after acceptance not a second recipient, opens and clicks
 * each recipient's first, a spam test no send; every share is of the recipients.
 */
export const dashboardContent = async (platform: TPlatform, userId: number): Promise<TDashboard> => {
  const [days, kinds] = await Promise.all([dailyFigures(platform.db, userId), findAccountKinds(platform.db, userId)]);
  const total = days.reduce<TFigures>((sum, day) => addFigures(sum, day), emptyFigures());
  const rates = ratesOf(total);
  return {
    status: true,
    smtp: kinds.hasSmtp,
    google: kinds.hasGmail,
    message: '',
    stats: {
      chart: days.map((day) => ({
        time: day.day,
        delivered: { total: day.delivered },
        failed: { temporary: { total: day.deferred }, permanent: { total: bouncedOf(day) } },
        total: day.recipients,
      })),
      table: days.slice(-7).map((day) => ({
        time: day.day,
        accepted: { total: day.accepted },
        delivered: { total: day.delivered },
        failed: { permanent: { total: bouncedOf(day) }, temporary: { total: day.deferred } },
        complained: { total: day.complained },
        total: day.recipients,
      })),
      tracking: {
        sent: total.accepted,
        delivered: total.delivered,
        opened: total.opened,
        clicked: total.clicked,
        bounced: bouncedOf(total),
        unsubscribed: total.unsubscribed,
        complained: total.complained,
        bounced_hard: total.bouncedHard,
        bounced_soft: total.bouncedSoft,
        deferred: total.deferred,
        unknown: total.unknown,
      },
      percentage: rates,
      general: { recipients: total.recipients },
    },
  };
};

type TEventQuery = z.output<typeof ZDeliveryEventQuery>;

/** The user's events of the kind and days asked for (the days in their time zone, as the counters keep them). */
const selectEvents = (db: Executor, userId: number, query: TEventQuery, timeZone: string) =>
  selectUserEvents(
    db,
    userId,
    { type: query.event_type, first_date: query.first_date, last_date: query.last_date },
    timeZone,
  );

const toEvent = (row: Awaited<ReturnType<ReturnType<typeof selectEvents>['execute']>>[number]) => ({
  id: row.id,
  recipient: row.recipient,
  event_type: row.event_type,
  severity: row.severity,
  created_at: row.created_at.toISOString(),
  delivery_message: row.detail,
  delivery_description: null,
  is_first: row.is_first,
});

/** The counter of each event type's rows (every open and click, not only the first). */
const EVENT_COUNTERS = {
  accepted: 'accepted',
  delivered: 'delivered',
  deferred: 'deferred',
  failed: 'failed',
  unknown: 'unknown',
  opened: 'opened_events',
  clicked: 'clicked_events',
  complained: 'complained',
  unsubscribed: 'unsubscribed',
} as const;

const isWholeDay = (value: string | undefined) => value === undefined || value.length === 10;

/**
 * The number of events asked for, from the daily counters (the events of each kind, summed,
 * over the days asked for) rather than a count of millions of rows. A bound with a time of
 * day cuts a day the counters keep whole: then the matches are counted (none of the
 * dashboard's own filters sends one), as is a search.
 */
const countedTotal = (userId: number, query: TEventQuery) => {
  if (!isWholeDay(query.first_date) || !isWholeDay(query.last_date)) return undefined;
  const counters = query.event_type ? [EVENT_COUNTERS[query.event_type]] : Object.values(EVENT_COUNTERS);
  return sql<number>`(select coalesce(sum(${sql.join(
    counters.map((counter) => sql.ref(counter)),
    sql` + `,
  )}), 0)::int from account_daily_stats
                       where user_id = ${userId}
                         and day >= coalesce(${query.first_date ?? null}::date, '-infinity')
                         and day <= coalesce(${query.last_date ?? null}::date, 'infinity'))`;
};

/**
 * The events of the user's messages, as the counters count them: a spam test's are not a
 * send's; an event a provider reports about an address Sendwell sent nothing to is not one.
 */
export const listDeliveryEvents = async (platform: TPlatform, userId: number, query: TEventQuery) => {
  const timeZone = await timeZoneOf(platform.db, userId);
  const page = await paginate(selectEvents(platform.db, userId, query, timeZone), query, {
    sortColumns: { created_at: 'delivery_events.occurred_at' },
    searchColumns: ['delivery_events.email'],
    tieBreaker: 'delivery_events.id',
    knownTotal: countedTotal(userId, query),
  });
  return { data: page.data.map(toEvent), meta: page.meta };
};

const EXPORT_SLICE = 5_000;

/** The delivery events as CSV, newest first, slice by slice; every cell through `safeCell` (R17). */
export async function* exportDeliveryEvents(platform: TPlatform, userId: number, query: TEventQuery) {
  const timeZone = await timeZoneOf(platform.db, userId);
  yield `\uFEFF${stringify([['Recipient', 'Event', 'Severity', 'Date', 'Message', 'Counted']])}`;
  let before = Number.MAX_SAFE_INTEGER;
  const search = query.search?.trim().toLowerCase();
  for (;;) {
    const rows = await selectEvents(platform.db, userId, query, timeZone)
      .where('delivery_events.id', '<', before)
      .orderBy('delivery_events.id', 'desc')
      .limit(EXPORT_SLICE)
      .execute();
    if (rows.length === 0) return;
    before = rows.at(-1)!.id;
    const kept = search ? rows.filter((row) => row.recipient.toLowerCase().includes(search)) : rows;
    yield stringify(
      kept.map((row) =>
        [
          row.recipient,
          row.event_type,
          row.severity ?? '',
          row.created_at.toISOString(),
          row.detail ?? '',
          // Whether the event moves a figure: the rows counted here are the dashboard's figures.
          row.is_first ? 'yes' : 'no',
        ].map(safeCell),
      ),
    );
  }
}
