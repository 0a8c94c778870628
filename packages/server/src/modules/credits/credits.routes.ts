import { ZCreditLogPage, ZCreditLogQuery } from '@sendwell/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { TPlatform } from '../../platform/context';
import { getUserInformation } from '../auth/auth.service';
import { listCreditLog } from './credits.service';

export const creditRoutes: FastifyPluginAsyncZod<{ platform: TPlatform }> = async (app, { platform }) => {
  app.get(
    '/credit-log',
    { schema: { tags: ['credits'], querystring: ZCreditLogQuery, response: { 200: ZCreditLogPage } } },
    async (request) => {
      const user = await getUserInformation(platform, request.session!.userId);
      return listCreditLog(platform, user.id, user.time_zone, request.query);
    },
  );
};
