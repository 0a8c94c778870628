import { API_KEY_MESSAGES, API_KEY_PREFIX, CSRF_HEADER, type TApiKeyScope } from '@sendwell/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { TApiKeyHolder } from '../modules/module';
import type { TPlatform } from './context';
import { HttpError, unauthenticated } from './errors';
import { consumeRateLimit, createMemoryRateLimiter } from './rate-limit';
import { hashToken, hmac, randomToken, safeEqual } from './tokens';

/** The cookies' names over plain HTTP; over HTTPS they carry the `__Host-` prefix (see `cookieName`). */
export const SESSION_COOKIE = 'sendwell_session';
export const CSRF_COOKIE = 'sendwell_csrf';

/** Refresh `last_seen_at` at most this often, so reads do not each cost a write. */
const LAST_SEEN_RESOLUTION_MS = 5 * 60_000;

export type TSession = { id: string; userId: number };

type TRouteRateLimit = {
  /** A name for the bucket, unique per route. */
  name: string;
  limit: number;
  windowSeconds: number;
  /** Count per signed-in user (falls back to IP when signed out) or per IP. */
  per: 'user' | 'ip';
  /**
   * Where hits are counted: in PostgreSQL, shared by every web process (the default), or in
   * this process's memory, for high-volume routes whose callers prove themselves otherwise.
   */
  store?: 'database' | 'memory';
};

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Answers without a session. Every /api route is private unless it says so. */
    public?: boolean;
    /** Set false only for callers that cannot hold our cookie (provider webhooks). */
    csrf?: boolean;
    /** A GET that changes data (a route descriptor's `changesState`): it needs the token as a POST does. */
    isStateChangingGet?: boolean;
    rateLimit?: TRouteRateLimit;
    /** The API key scope that may call the route (from its descriptor); without one, keys are refused. */
    apiKeyScope?: TApiKeyScope;
  }
  interface FastifyRequest {
    session: TSession | null;
    /** The key a request authenticated with (`Authorization: Bearer sw_…`); null for a browser's session. */
    apiKey: TApiKeyHolder | null;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The API key a request carries, if any: `Authorization: Bearer sw_…`. Other bearer tokens
 * (the metrics token, the ticket service's key) are the business of their own routes.
 */
const apiKeyOf = (request: FastifyRequest): string | null => {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1]?.startsWith(API_KEY_PREFIX) ? match[1] : null;
};

/**
 * A request with an API key (issue 48 §2, R45): the route must name a scope the key holds;
 * the key's user is the request's user (every query is scoped by it, as for a session); no
 * CSRF token (a browser never adds our bearer header by itself: CSRF is a cookie's risk);
 * every key has a rate limit of its own, shared by every web process, and the route's own
 * limit counts per key.
 */
const authenticateWithKey = async (platform: TPlatform, request: FastifyRequest, key: string) => {
  const scope = request.routeOptions.config.apiKeyScope;
  if (!scope) throw new HttpError(403, API_KEY_MESSAGES.noScope, 'API_KEY_NOT_ALLOWED');
  const holder = (await platform.hooks.apiKeyAuth?.(platform, key)) ?? null;
  if (!holder) throw new HttpError(401, API_KEY_MESSAGES.invalid, 'API_KEY_INVALID');
  if (!holder.scopes.includes(scope)) throw new HttpError(403, API_KEY_MESSAGES.missingScope(scope), 'API_KEY_SCOPE');
  const { limit, windowSeconds } = platform.config.apiKeyRateLimit;
  const result = await consumeRateLimit(platform.db, `api-key:${holder.keyId}`, limit, windowSeconds);
  if (!result.isAllowed) throw tooManyRequests(result.retryAfterSeconds);
  request.apiKey = holder;
  request.session = { id: `api-key:${holder.keyId}`, userId: holder.userId };
};

/**
 * Over HTTPS (directly or via a trusted proxy) our cookies are `__Host-` cookies: the browser
 * keeps them only if they are Secure, for path `/` and without a Domain, so a sibling
 * subdomain or a plain-HTTP page cannot plant or overwrite them (a planted session or CSRF
 * secret is how fixation starts). Browsers refuse the prefix without Secure, hence plain
 * names over HTTP (local runs).
 */
export const cookieName = (request: FastifyRequest, name: string) =>
  request.protocol === 'https' ? `__Host-${name}` : name;

const cookieOptions = (request: FastifyRequest, maxAgeSeconds?: number) => ({
  path: '/',
  httpOnly: true,
  sameSite: 'lax' as const,
  // Behind HTTPS (directly or via a proxy listed in TRUST_PROXY) cookies never travel in clear.
  secure: request.protocol === 'https',
  ...(maxAgeSeconds ? { maxAge: maxAgeSeconds } : {}),
});

/**
 * What a CSRF token is bound to: the session when signed in, else the browser's CSRF secret
 * cookie. A token seen before sign-in, or issued to another session, is worthless after it;
 * the web app fetches a new one on sign-in and sign-out, and once more on a `CSRF` 403.
 */
const csrfBinding = (session: TSession | null, secret: string | undefined): string | null => {
  if (session) return `session:${session.id}`;
  return secret && secret.length >= 32 ? `browser:${secret}` : null;
};

/** Gives the browser a CSRF secret cookie when it has none, and answers the token for its session or browser. */
export const issueCsrfToken = (platform: TPlatform, request: FastifyRequest, reply: FastifyReply): string => {
  const name = cookieName(request, CSRF_COOKIE);
  let secret = request.cookies[name];
  if (!secret || secret.length < 32) {
    secret = randomToken();
    reply.setCookie(name, secret, cookieOptions(request, 365 * 86_400));
  }
  return hmac(platform.secrets.csrfKey, csrfBinding(request.session, secret)!);
};

const hasValidCsrfToken = (platform: TPlatform, request: FastifyRequest): boolean => {
  const binding = csrfBinding(request.session, request.cookies[cookieName(request, CSRF_COOKIE)]);
  const header = request.headers[CSRF_HEADER];
  if (!binding || typeof header !== 'string') return false;
  return safeEqual(header, hmac(platform.secrets.csrfKey, binding));
};

export const findSession = async (platform: TPlatform, cookieValue: string | undefined): Promise<TSession | null> => {
  if (!cookieValue) return null;
  const idHash = hashToken(cookieValue);
  const id = idHash.toString('hex');
  const cachedUserId = platform.sessionCache.get(id);
  if (cachedUserId !== undefined) return { id, userId: cachedUserId };
  const row = await platform.db
    .selectFrom('sessions')
    .select(['user_id', 'last_seen_at', 'expires_at'])
    .where('id_hash', '=', idHash)
    .where('expires_at', '>', new Date())
    .executeTakeFirst();
  if (!row) return null;
  if (Date.now() - row.last_seen_at.getTime() > LAST_SEEN_RESOLUTION_MS) {
    await platform.db.updateTable('sessions').set({ last_seen_at: new Date() }).where('id_hash', '=', idHash).execute();
  }
  platform.sessionCache.set(id, row.user_id, row.expires_at);
  return { id, userId: row.user_id };
};

/** Starts a fresh session (a new id every sign-in) and sets its cookie. */
export const startSession = async (
  platform: TPlatform,
  request: FastifyRequest,
  reply: FastifyReply,
  userId: number,
): Promise<TSession> => {
  const token = randomToken();
  const idHash = hashToken(token);
  const ttlSeconds = platform.config.sessionTtlDays * 86_400;
  const expiresAt = new Date(Date.now() + ttlSeconds * 1000);
  await platform.db
    .insertInto('sessions')
    .values({
      id_hash: idHash,
      user_id: userId,
      ip: request.ip,
      user_agent: request.headers['user-agent']?.slice(0, 500) ?? null,
      expires_at: expiresAt,
    })
    .execute();
  reply.setCookie(cookieName(request, SESSION_COOKIE), token, cookieOptions(request, ttlSeconds));
  platform.sessionCache.set(idHash.toString('hex'), userId, expiresAt);
  return { id: idHash.toString('hex'), userId };
};

export const clearSessionCookie = (request: FastifyRequest, reply: FastifyReply) =>
  reply.clearCookie(cookieName(request, SESSION_COOKIE), cookieOptions(request));

/**
 * Whether a request is for the API, decided on the route the router matched: the router
 * decodes `%xx` and takes absolute-form request lines (`POST http://host/api/…`), so the
 * raw URL is not what runs. Without a matched route (404s) the path is normalised the same
 * way, so a 404 under any spelling of `/api/` is a JSON answer too.
 */
export const isApiRequest = (request: FastifyRequest): boolean => {
  const route = request.routeOptions.url;
  if (route !== undefined) return route.startsWith('/api/');
  return normalizedPath(request.url).startsWith('/api/');
};

const normalizedPath = (url: string): string => {
  const path = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '').split(/[?#]/, 1)[0] ?? '';
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // A malformed escape stays as sent; it matches no route either.
  }
  return decoded.replace(/\/{2,}/g, '/').toLowerCase();
};

/**
 * The sign-in baseline every /api route gets without asking: CSRF on state-changing
 * methods (403), a session unless the route is public (401), and per-route rate limits
 * (429) counted in PostgreSQL so all web processes share them. Which routes get it is
 * decided on the matched route, so no spelling of a path walks around it (R22). A named
 * function, so fastify-plugin need not throw an Error to read a name from its stack: under
 * `--enable-source-maps` the first stack formatted parses dist's whole source map, which a
 * process then holds (B9: ~10 MB of a worker's heap, for one name at start).
 */
export const httpSecurity = fp(async function httpSecurity(
  app: FastifyInstance,
  { platform }: { platform: TPlatform },
) {
  app.decorateRequest('session', null);
  app.decorateRequest('apiKey', null);
  const consumeInMemory = createMemoryRateLimiter();

  app.addHook('onRequest', async (request) => {
    // The route the router matched, never the raw URL (`/%61pi/…` is `/api/…` to the router).
    // No matched route: the not-found handler answers 404, and it reads nothing private.
    if (!request.routeOptions.url?.startsWith('/api/')) return;
    const config = request.routeOptions.config;
    // A public route (health, the docs) reads no key: it answers the same to anyone.
    const key = config.public ? null : apiKeyOf(request);
    if (key !== null) {
      // A key stands alone: any cookie sent with it is not read.
      await authenticateWithKey(platform, request, key);
    } else {
      // The session first: a signed-in browser's CSRF token is bound to it.
      request.session = await findSession(platform, request.cookies[cookieName(request, SESSION_COOKIE)]);
      if (!SAFE_METHODS.has(request.method) && config.csrf !== false && !hasValidCsrfToken(platform, request)) {
        throw new HttpError(403, 'Your session has expired. Reload the page and try again.', 'CSRF');
      }
      if (!config.public && !request.session) throw unauthenticated();
      // A GET that changes data needs the token too (after the session: without one it is a
      // 401 like every private GET, and changes nothing either way).
      if (config.isStateChangingGet && !hasValidCsrfToken(platform, request)) {
        throw new HttpError(403, 'Your session has expired. Reload the page and try again.', 'CSRF');
      }
    }

    const rateLimit = config.rateLimit;
    if (rateLimit) {
      const who = request.apiKey
        ? `key:${request.apiKey.keyId}`
        : rateLimit.per === 'user' && request.session
          ? `user:${request.session.userId}`
          : `ip:${request.ip}`;
      const key = `route:${rateLimit.name}:${who}`;
      const result =
        rateLimit.store === 'memory'
          ? consumeInMemory(key, rateLimit.limit, rateLimit.windowSeconds)
          : await consumeRateLimit(platform.db, key, rateLimit.limit, rateLimit.windowSeconds);
      if (!result.isAllowed) throw tooManyRequests(result.retryAfterSeconds);
    }
  });
});

export const tooManyRequests = (retryAfterSeconds: number) => {
  const minutes = Math.ceil(retryAfterSeconds / 60);
  return new HttpError(
    429,
    `Too many attempts. Please try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
    'RATE_LIMITED',
  );
};
