import { randomBytes } from 'node:crypto';
import {
  API_KEY_MESSAGES,
  API_KEY_PREFIX,
  API_KEY_SCOPES,
  API_KEY_SHOWN_CHARACTERS,
  API_KEYS_PER_USER,
  type TApiKey,
  type TApiKeyScope,
  type ZCreateApiKeyRequest,
} from '@sendwell/contracts';
import type { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import { HttpError, notFound } from '../../platform/errors';
import { hashToken } from '../../platform/tokens';
import { isUserEnabled } from '../auth/auth.service';
import type { TApiKeyAuthenticate } from '../module';
import * as repository from './api-keys.repository';

/** A key: the prefix and 240 random bits, URL-safe (40 characters). */
const newKey = () => `${API_KEY_PREFIX}${randomBytes(30).toString('base64url')}`;

/** What a key looks like: anything else in a bearer header is not ours (the metrics token, the ticket service's). */
export const API_KEY_PATTERN = /^sw_[A-Za-z0-9_-]{40}$/;

const toApiKey = (row: repository.TApiKeyRow): TApiKey => ({
  id: row.id,
  name: row.name,
  prefix: row.key_prefix,
  scopes: API_KEY_SCOPES.filter((scope) => row.scopes.includes(scope)),
  created_at: row.created_at.toISOString(),
  last_used_at: row.last_used_at?.toISOString() ?? null,
  revoked_at: row.revoked_at?.toISOString() ?? null,
});

export const listApiKeys = async (platform: TPlatform, userId: number) =>
  (await repository.listKeys(platform.db, userId)).map(toApiKey);

/**
 * Makes a key and answers it with its row: the only time the key is seen. Only its SHA-256
 * is stored (a table read opens nothing, R45).
 */
export const createApiKey = async (
  platform: TPlatform,
  userId: number,
  request: z.output<typeof ZCreateApiKeyRequest>,
) => {
  if ((await repository.countActiveKeys(platform.db, userId)) >= API_KEYS_PER_USER) {
    throw new HttpError(422, API_KEY_MESSAGES.tooMany, 'TOO_MANY_KEYS');
  }
  const key = newKey();
  const row = await repository.insertKey(platform.db, {
    userId,
    name: request.name,
    keyHash: hashToken(key),
    keyPrefix: key.slice(0, API_KEY_SHOWN_CHARACTERS),
    scopes: request.scopes,
  });
  return { key, data: toApiKey(row) };
};

/** Revoked at once: the next request with it finds no active key (nothing caches keys). */
export const revokeApiKey = async (platform: TPlatform, userId: number, keyId: number) => {
  if (await repository.revokeKey(platform.db, userId, keyId)) return;
  const row = await repository.findKeyOfUser(platform.db, userId, keyId);
  if (!row) throw notFound('This API key does not exist.');
  // Revoked already: nothing more to do, and saying so twice is not an error.
};

/**
 * The hook `platform/http-security.ts` asks for every request that carries a key: the
 * holder of an active key of an enabled user, its use recorded (at most once a minute).
 */
export const authenticateApiKey: TApiKeyAuthenticate = async (platform, key) => {
  if (!API_KEY_PATTERN.test(key)) return null;
  const row = await repository.findActiveKey(platform.db, hashToken(key));
  if (!row || !(await isUserEnabled(platform.db, row.user_id))) return null;
  if (!row.last_used_at || Date.now() - row.last_used_at.getTime() > 60_000) {
    await repository.touchKey(platform.db, row.id);
  }
  return {
    keyId: row.id,
    userId: row.user_id,
    scopes: row.scopes.filter((scope): scope is TApiKeyScope => (API_KEY_SCOPES as readonly string[]).includes(scope)),
  };
};
