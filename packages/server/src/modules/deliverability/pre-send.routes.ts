import { preSendApi, sendEmailApi } from '@sendwell/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { TPlatform } from '../../platform/context';
import { routesFor, userOf } from '../../platform/routes';
import {
  campaignPreSendCheck,
  messageCheck,
  preSendCheck,
  resendPreSendCheck,
  spamTestPreSendCheck,
} from './pre-send.service';

/** The pre-send check (issue 31 §1), beside Send Email's, the spam-test form's and the drip wizard's own calls. */
export const preSendRoutes: FastifyPluginAsyncZod<{ platform: TPlatform }> = async (app, { platform }) => {
  const serve = routesFor(app, ['sending']);
  serve(
    sendEmailApi.preSendCheck,
    { config: { rateLimit: { name: 'pre-send-check', limit: 120, windowSeconds: 600, per: 'user' } } },
    async (request) => preSendCheck(platform, userOf(request), request.body),
  );
  const limit = { rateLimit: { name: 'pre-send-check', limit: 120, windowSeconds: 600, per: 'user' as const } };
  serve(preSendApi.spamTest, { config: limit }, async (request) =>
    spamTestPreSendCheck(platform, userOf(request), request.body),
  );
  // Asked as the user types (after a pause): generous for a person, a wall for a script.
  serve(
    preSendApi.messageCheck,
    { config: { rateLimit: { name: 'message-check', limit: 600, windowSeconds: 600, per: 'user' } } },
    async (request) => messageCheck(platform, userOf(request), request.body),
  );
  routesFor(app, ['history'])(preSendApi.resend, { config: limit }, async (request) =>
    resendPreSendCheck(platform, userOf(request), request.body.accountId, request.body.id),
  );
  routesFor(app, ['campaigns'])(preSendApi.campaignStart, { config: limit }, async (request) =>
    campaignPreSendCheck(platform, userOf(request), request.body.temporary),
  );
};
