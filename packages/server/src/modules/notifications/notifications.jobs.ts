import { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import { defineJob } from '../../platform/queue';
import { publishToUser } from '../../platform/realtime';
import { countUnread, findNotification } from './notifications.repository';

/**
 * Pushes a stored notification to the user's open tabs. Runs in a worker, so it is also
 * how any background work tells a user it finished. Re-running it only re-sends the
 * same event, which the page treats as a refresh.
 */
export const deliverNotificationJob = defineJob({
  name: 'notifications.deliver',
  schema: z.object({ notificationId: z.number().int() }),
  handler: async ({ notificationId }, platform: TPlatform) => {
    const notification = await findNotification(platform.db, notificationId);
    if (!notification) return;
    await publishToUser(platform.db, notification.user_id, 'NotificationEvent', {
      id: notification.id,
      title: notification.title,
      body: notification.body,
      link: notification.link,
      unread: await countUnread(platform.db, notification.user_id),
    });
  },
});

export const notificationJobs = [deliverNotificationJob];
