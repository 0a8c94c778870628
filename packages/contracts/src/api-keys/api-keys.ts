import { z } from 'zod';
import { API_KEY_SCOPES } from './scopes';

/**
 * API keys (issue 48 §2): `sw_` and 40 random characters. Only the key's SHA-256 is stored;
 * the key is shown once, when it is created. `prefix` is its first characters, enough for a
 * person to tell their keys apart and nothing for an attacker.
 */
export const API_KEY_PREFIX = 'sw_';
/** The characters of a key shown on the Settings screen (the `sw_` and seven more). */
export const API_KEY_SHOWN_CHARACTERS = 10;
/** Active keys one user may hold at once. */
export const API_KEYS_PER_USER = 25;

export const API_KEY_MESSAGES = {
  created: 'Your API key has been created. Copy it now: it will not be shown again.',
  revoked: 'The API key has been revoked. Requests with it are refused from now on.',
  tooMany: `You can have at most ${API_KEYS_PER_USER} active API keys. Revoke one you no longer use first.`,
  invalid: 'This API key is not valid, or it was revoked.',
  noScope: 'API keys cannot call this route: it is only for the signed-in app.',
  missingScope: (scope: string) => `This API key does not have the ${scope} scope this route needs.`,
} as const;

export const ZApiKeyScope = z.enum(API_KEY_SCOPES);

export const ZApiKey = z.object({
  id: z.number().int(),
  name: z.string(),
  prefix: z.string(),
  scopes: z.array(ZApiKeyScope),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
});
export type TApiKey = z.infer<typeof ZApiKey>;

export const ZCreateApiKeyRequest = z.object({
  name: z
    .string({ message: 'Give the key a name.' })
    .trim()
    .min(1, { message: 'Give the key a name.' })
    .max(100, { message: 'The name may be at most 100 characters.' }),
  scopes: z
    .array(ZApiKeyScope)
    .min(1, { message: 'Choose at least one scope.' })
    .transform((scopes) => API_KEY_SCOPES.filter((scope) => scopes.includes(scope))),
});
export type TCreateApiKeyRequest = z.input<typeof ZCreateApiKeyRequest>;

export const ZCreateApiKeyResponse = z.object({
  status: z.literal(true),
  message: z.string(),
  data: ZApiKey,
  /** The key itself: this answer is the only place it ever appears. */
  key: z.string(),
});
