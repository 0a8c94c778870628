import { sql } from 'kysely';
import { dateBounds as boundsOf } from '../../platform/date-filter';
import type { Executor } from '../../platform/db';

/** The user's time zone, read in the query that filters by day (spec: dates in the user's zone). */
const userTimeZone = (userId: number) => sql<string>`(select time_zone from users where id = ${userId})`;

/** The spec's date filters on a column, in the user's time zone. */
export const dateBounds = (
  userId: number,
  column: string,
  filters: { first_date?: string | undefined; last_date?: string | undefined },
) => boundsOf(column, filters, userTimeZone(userId));

/** A user's sends with their account's provider, for the history and scheduled tables. */
export const selectSends = (db: Executor, userId: number) =>
  db
    .selectFrom('sends')
    .leftJoin('sending_accounts', 'sending_accounts.id', 'sends.account_id')
    .select([
      'sends.id',
      'sends.account_id',
      'sends.type',
      'sends.status',
      'sends.from_name',
      'sends.from_address',
      'sends.subject',
      'sends.list_names',
      'sends.list_ids',
      'sends.cc',
      'sends.bcc',
      'sends.reply_to',
      'sends.html',
      'sends.recipients_count',
      'sends.sent_count',
      'sends.failed_count',
      'sends.unknown_count',
      'sends.delivered_count',
      'sends.opened_count',
      'sends.clicked_count',
      'sends.complained_count',
      'sends.unsubscribed_count',
      'sends.deliver_at',
      'sends.started_at',
      'sends.finished_at',
      'sends.created_at',
      'sending_accounts.provider',
      'sending_accounts.driver',
    ])
    .where('sends.user_id', '=', userId)
    // The history lists what a user sent from the Send Email page; drip steps and spam
    // tests have screens of their own.
    .where('sends.source', '=', 'lists');

export type TSendRow = Awaited<ReturnType<ReturnType<typeof selectSends>['executeTakeFirstOrThrow']>>;

export const findSend = (db: Executor, userId: number, id: number) =>
  selectSends(db, userId).where('sends.id', '=', id).executeTakeFirst();

/** The delivery events of one send, as the history detail table shows them. */
export const selectSendEvents = (db: Executor, sendId: number) =>
  db
    .selectFrom('delivery_events')
    .select([
      'id',
      'email as recipient',
      sql<string>`case when type = 'accepted' then 'sent' else type end`.as('event_type'),
      'detail',
      'occurred_at as created_at',
    ])
    .where('send_id', '=', sendId);

/** Edits a scheduled send that has not started; answers whether it did. */
export const updateScheduled = async (
  db: Executor,
  userId: number,
  id: number,
  changes: { subject: string; html: string; cc: string; bcc: string; reply_to: string; deliver_at: Date },
) =>
  (
    await db
      .updateTable('sends')
      .set({ ...changes, updated_at: new Date() })
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .where('status', '=', 'scheduled')
      .where('started_at', 'is', null)
      .executeTakeFirst()
  ).numUpdatedRows > 0n;

export const setScheduledStatus = async (
  db: Executor,
  userId: number,
  id: number,
  from: 'scheduled' | 'cancelled',
  to: 'scheduled' | 'cancelled',
) =>
  (
    await db
      .updateTable('sends')
      .set({ status: to, updated_at: new Date(), finished_at: to === 'cancelled' ? new Date() : null })
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .where('status', '=', from)
      .where('started_at', 'is', null)
      .executeTakeFirst()
  ).numUpdatedRows > 0n;

/** Deletes a send that is not running (its recipients and events go with it). */
export const deleteSend = async (db: Executor, userId: number, id: number) =>
  (
    await db
      .deleteFrom('sends')
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .where('status', 'in', ['scheduled', 'cancelled', 'finished', 'failed'])
      .executeTakeFirst()
  ).numDeletedRows > 0n;
