import { notificationsApi } from '@sendwell/contracts';
import { moduleRoutes, userOf } from '../../platform/routes';
import { listNotifications, markNotificationsRead } from './notifications.service';

export const notificationRoutes = moduleRoutes(['notifications'], (serve, platform) => {
  serve(notificationsApi.list, async (request) => listNotifications(platform, userOf(request), request.query));

  serve(notificationsApi.markRead, async (request) => {
    const unread = await markNotificationsRead(platform, userOf(request), request.body.ids);
    return { status: true, message: 'Marked as read.', unread };
  });
});
