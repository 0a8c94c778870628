import { notificationsApi } from '@sendwell/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { TPlatform } from '../../platform/context';
import { routesFor, userOf } from '../../platform/routes';
import { listNotifications, markNotificationsRead } from './notifications.service';

export const notificationRoutes: FastifyPluginAsyncZod<{ platform: TPlatform }> = async (app, { platform }) => {
  const serve = routesFor(app, ['notifications']);

  serve(notificationsApi.list, async (request) => listNotifications(platform, userOf(request), request.query));

  serve(notificationsApi.markRead, async (request) => {
    const unread = await markNotificationsRead(platform, userOf(request), request.body.ids);
    return { status: true, message: 'Marked as read.', unread };
  });
};
