import { CSRF_HEADER } from '@sendwell/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { TPlatform } from './context';
import { HttpError, unauthenticated } from './errors';
import { consumeRateLimit, createMemoryRateLimiter } from './rate-limit';
import { hashToken, hmac, randomToken, safeEqual } from './tokens';

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
    rateLimit?: TRouteRateLimit;
  }
  interface FastifyRequest {
    session: TSession | null;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const cookieOptions = (request: FastifyRequest, maxAgeSeconds?: number) => ({
  path: '/',
  httpOnly: true,
  sameSite: 'lax' as const,
  // Behind HTTPS (directly or via a proxy with TRUST_PROXY) cookies never travel in clear.
  secure: request.protocol === 'https',
  ...(maxAgeSeconds ? { maxAge: maxAgeSeconds } : {}),
});

export const csrfTokenFor = (platform: TPlatform, secret: string) => hmac(platform.secrets.csrfKey, secret);

/** Gives the browser a CSRF secret cookie when it has none, and answers its token. */
export const issueCsrfToken = (platform: TPlatform, request: FastifyRequest, reply: FastifyReply): string => {
  let secret = request.cookies[CSRF_COOKIE];
  if (!secret || secret.length < 32) {
    secret = randomToken();
    reply.setCookie(CSRF_COOKIE, secret, cookieOptions(request, 365 * 86_400));
  }
  return csrfTokenFor(platform, secret);
};

const hasValidCsrfToken = (platform: TPlatform, request: FastifyRequest): boolean => {
  const secret = request.cookies[CSRF_COOKIE];
  const header = request.headers[CSRF_HEADER];
  if (!secret || typeof header !== 'string') return false;
  return safeEqual(header, csrfTokenFor(platform, secret));
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
  reply.setCookie(SESSION_COOKIE, token, cookieOptions(request, ttlSeconds));
  platform.sessionCache.set(idHash.toString('hex'), userId, expiresAt);
  return { id: idHash.toString('hex'), userId };
};

export const clearSessionCookie = (request: FastifyRequest, reply: FastifyReply) =>
  reply.clearCookie(SESSION_COOKIE, cookieOptions(request));

/**
 * The sign-in baseline every /api route gets without asking: CSRF on state-changing
 * methods (403), a session unless the route is public (401), and per-route rate limits
 * (429) counted in PostgreSQL so all web processes share them.
 */
export const httpSecurity = fp(async (app: FastifyInstance, { platform }: { platform: TPlatform }) => {
  app.decorateRequest('session', null);
  const consumeInMemory = createMemoryRateLimiter();

  app.addHook('onRequest', async (request) => {
    // No matched route: the not-found handler answers 404, and it reads nothing private.
    if (!request.url.startsWith('/api/') || !request.routeOptions.url) return;
    const config = request.routeOptions.config;
    if (!SAFE_METHODS.has(request.method) && config.csrf !== false && !hasValidCsrfToken(platform, request)) {
      throw new HttpError(403, 'Your session has expired. Reload the page and try again.', 'CSRF');
    }
    request.session = await findSession(platform, request.cookies[SESSION_COOKIE]);
    if (!config.public && !request.session) throw unauthenticated();

    const rateLimit = config.rateLimit;
    if (rateLimit) {
      const who = rateLimit.per === 'user' && request.session ? `user:${request.session.userId}` : `ip:${request.ip}`;
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
