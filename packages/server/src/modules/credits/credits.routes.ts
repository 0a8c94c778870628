import { ZCreditLogPage, ZCreditLogQuery } from '@sendwell/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { TPlatform } from '../../platform/context';
import { listCreditLog } from './credits.service';

export const creditRoutes: FastifyPluginAsyncZod<{ platform: TPlatform }> = async (app, { platform }) => {
  app.get(
    '/credit-log',
    { schema: { tags: ['credits'], querystring: ZCreditLogQuery, response: { 200: ZCreditLogPage } } },
    async (request) => listCreditLog(platform, request.session!.userId, request.query),
  );
};
