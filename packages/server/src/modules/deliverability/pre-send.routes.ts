import { sendEmailApi } from '@sendwell/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { TPlatform } from '../../platform/context';
import { routesFor } from '../../platform/routes';
import { preSendCheck } from './pre-send.service';

/** The pre-send check (issue 31 §1), beside Send Email's own calls. */
export const preSendRoutes: FastifyPluginAsyncZod<{ platform: TPlatform }> = async (app, { platform }) => {
  const serve = routesFor(app, ['sending']);
  serve(
    sendEmailApi.preSendCheck,
    { config: { rateLimit: { name: 'pre-send-check', limit: 120, windowSeconds: 600, per: 'user' } } },
    async (request) => preSendCheck(platform, request.session!.userId, request.body),
  );
};
