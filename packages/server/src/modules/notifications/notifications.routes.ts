import { ZMarkNotificationsRead, ZNotificationPage, ZNotificationPageQuery } from '@sendwell/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import { listNotifications, markNotificationsRead } from './notifications.service';

export const notificationRoutes: FastifyPluginAsyncZod<{ platform: TPlatform }> = async (app, { platform }) => {
  app.get(
    '/notifications',
    { schema: { tags: ['notifications'], querystring: ZNotificationPageQuery, response: { 200: ZNotificationPage } } },
    async (request) => listNotifications(platform, request.session!.userId, request.query),
  );

  app.post(
    '/notifications/read',
    {
      schema: {
        tags: ['notifications'],
        body: ZMarkNotificationsRead,
        response: { 200: z.object({ status: z.boolean(), message: z.string(), unread: z.number().int() }) },
      },
    },
    async (request) => {
      const unread = await markNotificationsRead(platform, request.session!.userId, request.body.ids);
      return { status: true, message: 'Marked as read.', unread };
    },
  );
};
