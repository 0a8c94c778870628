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

/** Uses the partial index on unread rows, so it stays cheap however many are read. */
export const countUnread = async (db: Executor, userId: number): Promise<number> => {
  const row = await db
    .selectFrom('notifications')
    .select((eb) => eb.fn.countAll<string>().as('unread'))
    .where('user_id', '=', userId)
    .where('read_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.unread);
};

export const markRead = (db: Executor, userId: number, ids: number[] | undefined) => {
  let query = db
    .updateTable('notifications')
    .set({ read_at: new Date(), updated_at: new Date() })
    .where('user_id', '=', userId)
    .where('read_at', 'is', null);
  if (ids) query = query.where('id', 'in', ids.length > 0 ? ids : [-1]);
  return query.executeTakeFirst();
};
