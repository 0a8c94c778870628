import { z } from 'zod';
import { defineRoute } from '../http/routes';
import { ZMarkNotificationsRead, ZNotificationPage, ZNotificationPageQuery } from './notifications';

export const notificationsApi = {
  list: defineRoute({
    method: 'GET',
    path: '/notifications',
    query: ZNotificationPageQuery,
    response: ZNotificationPage,
  }),
  /** `ids` marks those read; without it, all of them. Answers the unread count left. */
  markRead: defineRoute({
    method: 'POST',
    path: '/notifications/read',
    body: ZMarkNotificationsRead,
    response: z.object({ status: z.boolean(), message: z.string(), unread: z.number().int() }),
  }),
};
