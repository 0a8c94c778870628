import { API_KEY_MESSAGES, apiKeysApi } from '@sendwell/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { routesFor, userOf } from '../../platform/routes';
import type { TModuleOptions } from '../module';
import { createApiKey, listApiKeys, revokeApiKey } from './api-keys.service';

/** Settings → API keys. No scope: a key cannot list, make or revoke keys. */
export const apiKeyRoutes: FastifyPluginAsyncZod<TModuleOptions> = async (app, { platform }) => {
  const serve = routesFor(app, ['api-keys']);
  const editLimit = { rateLimit: { name: 'api-keys', limit: 30, windowSeconds: 600, per: 'user' as const } };

  serve(apiKeysApi.list, async (request) => ({ data: await listApiKeys(platform, userOf(request)) }));

  serve(apiKeysApi.create, { config: editLimit }, async (request) => ({
    status: true as const,
    message: API_KEY_MESSAGES.created,
    ...(await createApiKey(platform, userOf(request), request.body)),
  }));

  serve(apiKeysApi.revoke, { config: editLimit }, async (request) => {
    await revokeApiKey(platform, userOf(request), request.params.id);
    return { status: true, message: API_KEY_MESSAGES.revoked };
  });
};
