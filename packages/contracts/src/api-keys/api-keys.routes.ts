import { z } from 'zod';
import { ZStatusMessage } from '../http/errors';
import { defineRoute, ZIdParams } from '../http/routes';
import { ZApiKey, ZCreateApiKeyRequest, ZCreateApiKeyResponse } from './api-keys';

/**
 * Settings → API keys (issue 48 §2; paths of ours in the spec's `/settings/…` family). For the
 * signed-in app only: no scope lets a key list, make or revoke keys.
 */
export const apiKeysApi = {
  list: defineRoute({ method: 'GET', path: '/settings/api-keys', response: z.object({ data: z.array(ZApiKey) }) }),
  create: defineRoute({
    method: 'POST',
    path: '/settings/api-keys',
    body: ZCreateApiKeyRequest,
    response: ZCreateApiKeyResponse,
  }),
  /** Revoked at once: the next request with the key is refused. The row stays, marked revoked. */
  revoke: defineRoute({
    method: 'POST',
    path: '/settings/api-keys/:id/revoke',
    params: ZIdParams,
    response: ZStatusMessage,
  }),
};
