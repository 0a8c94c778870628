import { type DestinationStream, type Logger, pino } from 'pino';

const REDACTED = '[redacted]';

/** Route parameters and query fields that carry a secret: unsubscribe and tracking tokens, signatures, OAuth codes. */
const SECRET_NAMES = /^(token|sig|signature|code|state|key|secret|password|access_token|refresh_token)$/i;

/** What our tokens look like (32 random bytes, base64url) and most others: long runs of URL-safe characters. */
const TOKEN_LIKE = /^[A-Za-z0-9_.~-]{20,}$/;

const redactValue = (name: string, value: string) =>
  SECRET_NAMES.test(name) || TOKEN_LIKE.test(value) ? REDACTED : value;

const redactQuery = (query: string): string => {
  if (!query) return '';
  const params = new URLSearchParams(query);
  const kept = [...params].map(([name, value]) => {
    const shown = redactValue(name, value);
    return `${encodeURIComponent(name)}=${shown === REDACTED ? REDACTED : encodeURIComponent(value)}`;
  });
  return `?${kept.join('&')}`;
};

type TLoggedRequest = {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number } | null;
  routeOptions?: { url?: string };
  params?: unknown;
};

/**
 * The request's URL without its secrets (R29). For a matched route it is the route's pattern
 * with parameters filled in, secret ones as `[redacted]`: the router decodes `%xx`, so a
 * pattern match on the raw URL could be walked around by spelling. Unmatched URLs (the web
 * app's `/reset-password/<token>`, anything mistyped) keep their shape with token-like
 * segments redacted. Query values named like secrets, or looking like tokens, are redacted.
 */
export const redactedUrl = (request: TLoggedRequest): string => {
  const raw = request.url ?? '';
  const queryStart = raw.indexOf('?');
  const query = redactQuery(queryStart === -1 ? '' : raw.slice(queryStart + 1));
  const route = request.routeOptions?.url;
  const params = (request.params ?? {}) as Record<string, unknown>;
  if (route) {
    const path = route.replace(/:(\w+)/g, (_match, name: string) => {
      const value = params[name];
      if (typeof value !== 'string') return `:${name}`;
      return redactValue(name, value) === REDACTED ? REDACTED : encodeURIComponent(value);
    });
    return `${path.replace(/\*$/, () => (typeof params['*'] === 'string' ? redactPath(params['*']) : '*'))}${query}`;
  }
  return `${redactPath(queryStart === -1 ? raw : raw.slice(0, queryStart))}${query}`;
};

const redactPath = (path: string): string =>
  path
    .split('/')
    .map((segment) => {
      let decoded = segment;
      try {
        decoded = decodeURIComponent(segment);
      } catch {
        // Kept as sent; judged as it is.
      }
      return TOKEN_LIKE.test(decoded) || TOKEN_LIKE.test(decoded.replace(/\.\w{1,5}$/, '')) ? REDACTED : segment;
    })
    .join('/');

/** Fastify's request serializer, with the URL redacted and, as before, no headers. */
const serializeRequest = (request: TLoggedRequest) => ({
  method: request.method,
  url: redactedUrl(request),
  host: request.host,
  remoteAddress: request.ip,
  remotePort: request.socket?.remotePort,
});

/**
 * Headers that hold credentials, wherever a log call puts a headers object: session and CSRF
 * cookies, bearer tokens (metrics, API keys), provider signatures.
 */
const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-csrf-token"]',
  'headers.authorization',
  'headers.cookie',
  'headers["x-csrf-token"]',
  'headers["set-cookie"]',
  'res.headers["set-cookie"]',
  '*.headers.authorization',
  '*.headers.cookie',
];

/**
 * The process's logger: JSON lines at `level`, to stdout unless a destination is given
 * (tests capture lines that way). Fastify's request logs go through it (`loggerInstance`),
 * and Fastify takes the `req` serializer set here over its own.
 */
export const createLogger = (level: string, destination?: DestinationStream): Logger =>
  pino(
    {
      level,
      serializers: { req: serializeRequest },
      redact: { paths: REDACTED_PATHS, censor: REDACTED },
    },
    destination,
  );
