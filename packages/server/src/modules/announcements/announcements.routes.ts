import { supportApi } from '@sendwell/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { TPlatform } from '../../platform/context';
import { routesFor } from '../../platform/routes';
import { currentAnnouncement } from './announcements.service';

/** The signed-in user's call: the announcement the modal shows, or none. */
export const announcementRoutes: FastifyPluginAsyncZod<{ platform: TPlatform }> = async (app, { platform }) => {
  const serve = routesFor(app, ['support']);
  serve(supportApi.announcement, async () => ({ data: await currentAnnouncement(platform) }));
};
