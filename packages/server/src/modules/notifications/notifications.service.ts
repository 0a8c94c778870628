import type { TNotificationPage, TNotificationPageQuery } from '@sendwell/contracts';
import type { TPlatform } from '../../platform/context';
import type { Executor } from '../../platform/db';
import { paginate } from '../../platform/paging';
import { deliverNotificationJob } from './notifications.jobs';
import * as repository from './notifications.repository';

export const listNotifications = async (
  platform: TPlatform,
  userId: number,
  query: TNotificationPageQuery,
): Promise<TNotificationPage> => {
  // The page, its total and the unread count in one statement: the maintained counters ride
  // along with the rows as scalar subqueries (one round trip, not two; B7).
  let rows = repository
    .selectNotifications(platform.db, userId)
    .select(repository.counterOf(userId, 'unread').as('__unread'));
  if (query.unread === '1') rows = rows.where('read_at', 'is', null);
  const page = await paginate(rows, query, {
    sortColumns: { created_at: 'created_at', title: 'title' },
    searchColumns: ['title', 'body'],
    tieBreaker: 'id',
    // Used only when there is no search (paginate counts the matches then).
    knownTotal: repository.counterOf(userId, query.unread === '1' ? 'unread' : 'total'),
  });
  // A page without rows carries no counters: only then are they read on their own.
  const unread = page.data[0]?.__unread ?? (await repository.findCounters(platform.db, userId)).unread;
  return {
    data: page.data.map(({ __unread: _unread, ...row }) => ({
      ...row,
      read_at: row.read_at?.toISOString() ?? null,
      created_at: row.created_at.toISOString(),
    })),
    meta: page.meta,
    unread: Number(unread),
  };
};

export const markNotificationsRead = async (platform: TPlatform, userId: number, ids: number[] | undefined) => {
  await repository.markRead(platform.db, userId, ids);
  return repository.countUnread(platform.db, userId);
};

type TNotification = { userId: number; title: string; body?: string; link?: string | null };

const insertAndQueue = async (platform: TPlatform, trx: Executor, notification: TNotification) => {
  const { id } = await repository.insertNotification(trx, {
    userId: notification.userId,
    title: notification.title,
    body: notification.body ?? '',
    link: notification.link ?? null,
  });
  await platform.queue.enqueue(deliverNotificationJob, { notificationId: id }, { executor: trx });
  return id;
};

/**
 * The one way to tell a user something finished: stores the notification and queues its
 * delivery in one transaction. Given the caller's transaction (`executor`), the
 * notification commits with the change it is about: if that rolls back, nobody is told, and
 * a change that commits is always told.
 */
export const notifyUser = async (platform: TPlatform, notification: TNotification, executor?: Executor) =>
  executor
    ? insertAndQueue(platform, executor, notification)
    : platform.db.transaction().execute((trx) => insertAndQueue(platform, trx, notification));
