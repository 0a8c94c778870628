import { sql } from 'kysely';
import type { Executor } from '../../platform/db';

export const selectNotifications = (db: Executor, userId: number) =>
  db
    .selectFrom('notifications')
    .select(['id', 'title', 'body', 'link', 'read_at', 'created_at'])
    .where('user_id', '=', userId);

export const insertNotification = (
  db: Executor,
  notification: { userId: number; title: string; body: string; link: string | null },
) =>
  db
    .insertInto('notifications')
    .values({
      user_id: notification.userId,
      title: notification.title,
      body: notification.body,
      link: notification.link,
    })
    .returning('id')
    .executeTakeFirstOrThrow();

export const findNotification = (db: Executor, id: number) =>
  db
    .selectFrom('notifications')
    .select(['id', 'user_id', 'title', 'body', 'link'])
    .where('id', '=', id)
    .executeTakeFirst();

/** One maintained count as a scalar subquery (0 without a counters row), to select alongside a page. */
export const counterOf = (userId: number, counter: 'total' | 'unread') =>
  sql<number>`coalesce((select ${sql.ref(counter)} from notification_counters where user_id = ${userId}), 0)`;

/** The maintained counts (a trigger keeps them), so no page view counts rows. */
export const findCounters = async (db: Executor, userId: number): Promise<{ total: number; unread: number }> => {
  const row = await db
    .selectFrom('notification_counters')
    .select(['total', 'unread'])
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row ?? { total: 0, unread: 0 };
};

export const countUnread = async (db: Executor, userId: number) => (await findCounters(db, userId)).unread;

export const markRead = (db: Executor, userId: number, ids: number[] | undefined) => {
  let query = db
    .updateTable('notifications')
    .set({ read_at: new Date(), updated_at: new Date() })
    .where('user_id', '=', userId)
    .where('read_at', 'is', null);
  if (ids) query = query.where('id', 'in', ids.length > 0 ? ids : [-1]);
  return query.executeTakeFirst();
};
