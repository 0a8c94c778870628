import { API_KEY_MESSAGES, apiKeysApi } from '@sendwell/contracts';
import { moduleRoutes, perUserLimit, userOf } from '../../platform/routes';
import { createApiKey, listApiKeys, revokeApiKey } from './api-keys.service';

/** Settings → API keys. No scope: a key cannot list, make or revoke keys. */
export const apiKeyRoutes = moduleRoutes(['api-keys'], (serve, platform) => {
  const editLimit = perUserLimit('api-keys', 30);

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
});
