import { DELIVERY_EVENT_TYPES, safeCell, type TDashboard, type ZDeliveryEventQuery } from '@sendwell/contracts';
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

type TDay = {
  day: string;
  accepted: number;
  delivered: number;
  deferred: number;
  failed: number;
  unknown: number;
  opened: number;
  clicked: number;
  complained: number;
  unsubscribed: number;
};

const dailyTotals = async (db: Executor, userId: number) =>
  (
    await sql<TDay>`
      -- The counters' days are the user's (the trigger dates events in their time zone).
      with today as (
        select (now() at time zone ${await timeZoneOf(db, userId)})::date as day
      ), days as (
        select (today.day - offs)::date as day from today, generate_series(0, ${DAYS - 1}) as offs
      )
      select to_char(days.day, 'YYYY-MM-DD') as day,
             coalesce(sum(s.accepted), 0)::int as accepted, coalesce(sum(s.delivered), 0)::int as delivered,
             coalesce(sum(s.deferred), 0)::int as deferred, coalesce(sum(s.failed), 0)::int as failed,
             coalesce(sum(s.unknown), 0)::int as unknown, coalesce(sum(s.opened), 0)::int as opened,
             coalesce(sum(s.clicked), 0)::int as clicked, coalesce(sum(s.complained), 0)::int as complained,
             coalesce(sum(s.unsubscribed), 0)::int as unsubscribed
        from days
        left join account_daily_stats s on s.user_id = ${userId} and s.day = days.day
       group by days.day
       order by days.day`.execute(db)
  ).rows;

const percent = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part / whole) * 1000) / 10);

export const dashboardContent = async (platform: TPlatform, userId: number): Promise<TDashboard> => {
  const [days, kinds] = await Promise.all([dailyTotals(platform.db, userId), findAccountKinds(platform.db, userId)]);
  const sum = (key: keyof Omit<TDay, 'day'>) => days.reduce((total, day) => total + day[key], 0);
  const sent = sum('accepted');
  const tracking = {
    sent,
    delivered: sum('delivered'),
    opened: sum('opened'),
    clicked: sum('clicked'),
    bounced: sum('failed'),
    unsubscribed: sum('unsubscribed'),
  };
  return {
    status: true,
    smtp: kinds.hasSmtp,
    google: kinds.hasGmail,
    message: '',
    stats: {
      chart: days.map((day) => ({
        time: day.day,
        delivered: { total: day.delivered },
        failed: { temporary: { total: day.deferred }, permanent: { total: day.failed } },
        total: day.accepted + day.failed + day.unknown,
      })),
      table: days.slice(-7).map((day) => ({
        time: day.day,
        accepted: { total: day.accepted },
        delivered: { total: day.delivered },
        failed: { permanent: { total: day.failed }, temporary: { total: day.deferred } },
        complained: { total: day.complained },
        total: day.accepted + day.failed + day.unknown,
      })),
      tracking,
      percentage: {
        sent: percent(sent, sent + tracking.bounced + sum('unknown')),
        delivered: percent(tracking.delivered, sent),
        opened: percent(tracking.opened, sent),
        clicked: percent(tracking.clicked, sent),
        bounced: percent(tracking.bounced, sent + tracking.bounced),
        unsubscribed: percent(tracking.unsubscribed, sent),
      },
      general: { recipients: sent + tracking.bounced + sum('unknown') },
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
});

const isWholeDay = (value: string | undefined) => value === undefined || value.length === 10;

/**
 * The number of events asked for, from the daily counters (the events of each kind, summed,
 * over the days asked for) rather than a count of millions of rows. A bound with a time of
 * day cuts a day the counters keep whole: then the matches are counted (none of the
 * dashboard's own filters sends one).
 */
const countedTotal = (userId: number, query: TEventQuery) => {
  if (!isWholeDay(query.first_date) || !isWholeDay(query.last_date)) return undefined;
  const counted = query.event_type ? sql.ref(query.event_type) : sql.raw(DELIVERY_EVENT_TYPES.join(' + '));
  return sql<number>`(select coalesce(sum(${counted}), 0)::int from account_daily_stats
                       where user_id = ${userId}
                         and day >= coalesce(${query.first_date ?? null}::date, '-infinity')
                         and day <= coalesce(${query.last_date ?? null}::date, 'infinity'))`;
};

export const listDeliveryEvents = async (platform: TPlatform, userId: number, query: TEventQuery) => {
  const timeZone = await timeZoneOf(platform.db, userId);
  const page = await paginate(selectEvents(platform.db, userId, query, timeZone), query, {
    sortColumns: { created_at: 'occurred_at' },
    searchColumns: ['email'],
    tieBreaker: 'id',
    knownTotal: countedTotal(userId, query),
  });
  return { data: page.data.map(toEvent), meta: page.meta };
};

const EXPORT_SLICE = 5_000;

/** The delivery events as CSV, newest first, slice by slice; every cell through `safeCell` (R17). */
export async function* exportDeliveryEvents(platform: TPlatform, userId: number, query: TEventQuery) {
  const timeZone = await timeZoneOf(platform.db, userId);
  yield `\uFEFF${stringify([['Recipient', 'Event', 'Severity', 'Date', 'Message']])}`;
  let before = Number.MAX_SAFE_INTEGER;
  const search = query.search?.trim().toLowerCase();
  for (;;) {
    const rows = await selectEvents(platform.db, userId, query, timeZone)
      .where('id', '<', before)
      .orderBy('id', 'desc')
      .limit(EXPORT_SLICE)
      .execute();
    if (rows.length === 0) return;
    before = rows.at(-1)!.id;
    const kept = search ? rows.filter((row) => row.recipient.toLowerCase().includes(search)) : rows;
    yield stringify(
      kept.map((row) =>
        [row.recipient, row.event_type, row.severity ?? '', row.created_at.toISOString(), row.detail ?? ''].map(
          safeCell,
        ),
      ),
    );
  }
}
