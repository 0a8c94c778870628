import { supportApi } from '@sendwell/contracts';
import { moduleRoutes } from '../../platform/routes';
import { currentAnnouncement } from './announcements.service';

/** The signed-in user's call: the announcement the modal shows, or none. */
export const announcementRoutes = moduleRoutes(['support'], (serve, platform) => {
  serve(supportApi.announcement, async () => ({ data: await currentAnnouncement(platform) }));
});
