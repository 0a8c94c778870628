import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import fastifyCookie from '@fastify/cookie';
import fastifyStatic from '@fastify/static';
import fastifySwagger from '@fastify/swagger';
import fastifyWebsocket from '@fastify/websocket';
import { REALTIME_PATH, type TErrorBody, UPLOAD_MESSAGES } from '@sendwell/contracts';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyContextConfig,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import { jsonSchemaTransform, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { modules } from './modules';
import type { TPlatform } from './platform/context';
import { handleError } from './platform/error-handler';
import { HttpError, notFound } from './platform/errors';
import { httpSecurity, isApiRequest } from './platform/http-security';
import { registerMetrics } from './platform/metrics';
import type { TRealtimeHub } from './platform/realtime';
import { zodResponseSerializer } from './platform/serializer';
import { randomToken, safeEqual } from './platform/tokens';

// The web app itself: React, Mantine's inline styles, our own WebSocket, the captcha's
// proof-of-work workers (blob: URLs). With Stripe configured, its card field loads from
// js.stripe.com in frames it owns. User HTML is only ever shown in sandboxed frames,
// which get their own stricter policy.
const contentSecurityPolicy = (withStripe: boolean) => {
  const stripeScripts = withStripe ? ' https://js.stripe.com' : '';
  const stripeFrames = withStripe ? ' https://js.stripe.com https://hooks.stripe.com' : '';
  const stripeApi = withStripe ? ' https://api.stripe.com' : '';
  return [
    "default-src 'self'",
    `script-src 'self'${stripeScripts}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob: https:",
    "font-src 'self' data:",
    `connect-src 'self' ws: wss:${stripeApi}`,
    "worker-src 'self' blob:",
    `frame-src 'self' blob:${stripeFrames}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'self'",
  ].join('; ');
};

type TBuildOptions = { platform: TPlatform; hub: TRealtimeHub };

export type TRouteEntry = {
  method: string;
  url: string;
  isPublic: boolean;
  isCsrfExempt: boolean;
  rateLimit: FastifyContextConfig['rateLimit'];
};

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route with whether it answers without a session; the inventory test walks it. */
    routeInventory: TRouteEntry[];
  }
}

/**
 * Request ids for the logs: a random prefix per process and a counter. Unique across a
 * deployment's processes without reading the system's random source on every request
 * (that read was 6% of a webhook's CPU).
 */
const REQUEST_ID_PREFIX = randomToken().slice(0, 8);
let requestCount = 0;
const nextRequestId = () => `${REQUEST_ID_PREFIX}${(++requestCount).toString(36)}`;

/**
 * One log line per request, when it completes: method, URL (redacted, R29), status and time
 * together, where Fastify writes two (an "incoming request" line first). Each line costs a
 * serialisation, redaction and a write on every request (~9% of B7's rate for two).
 *
 * A completed request's line holds only what the serializers keep (the request's method,
 * redacted URL, host and address; the status), never a header, so it goes through a child
 * without the logger's header redaction: walking those paths was 60 % of the line's cost
 * (2.7 of 4.5 µs). An error line keeps it, since an error may carry a request's headers.
 */
const LEVELS_WITH_INFO = new Set(['trace', 'debug', 'info']);

class RequestLog extends LogController {
  readonly #completed: FastifyBaseLogger;

  constructor(log: FastifyBaseLogger) {
    super();
    this.#completed = log.child({}, { redact: [] });
  }

  override incomingRequest() {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply) {
    if (this.isLogDisabled(request)) return;
    const line = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    // The request's own logger carries its route's level (machine traffic logs at warn); the
    // response as Fastify's own `res` serializer writes it, which this child lacks.
    else if (LEVELS_WITH_INFO.has(reply.log.level)) {
      this.#completed.info({ reqId: request.id, ...line, res: { statusCode: reply.statusCode } }, 'request completed');
    }
  }
}

/**
 * What Node's HTTP parser could not read reaches no route: answered here, in the API's
 * `{status, message}` shape, as Fastify's default does but with words a person can act on.
 * A body that ends before its declared length (the client stopped sending) is an upload
 * cut short; nothing of it was stored.
 */
function answerClientError(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Duplex) {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'The request took too long to arrive.']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'The request headers are too large.']
        : error.code === 'HPE_INVALID_EOF_STATE'
          ? [400, UPLOAD_MESSAGES.cutShort]
          : [400, 'The request could not be read: it is not valid HTTP.'];
  const body = JSON.stringify({ status: false, message } satisfies TErrorBody);
  this.log.debug({ err: error }, 'client error');
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/**
 * The web role's HTTP server. Load order matters: cookies, then the security hooks that
 * read them, then the error handler and routes; static files come last so /api is never
 * shadowed by the web app.
 */
export const buildApp = async ({ platform, hub }: TBuildOptions): Promise<FastifyInstance> => {
  const { config } = platform;
  const app = Fastify({
    loggerInstance: platform.log,
    // Only the listed proxies' X-Forwarded-* count; anyone else's would pick their own IP (R26).
    trustProxy: config.trustProxy,
    genReqId: nextRequestId,
    logController: new RequestLog(platform.log),
    bodyLimit: 10 * 1024 * 1024,
    // Slow clients cost a socket, never forever (R25): the headers must come quickly, a
    // socket silent in both directions is closed, and the whole request has a generous
    // bound so a 256 MB list upload on a slow but live link still arrives.
    http: { headersTimeout: config.http.headersTimeoutMs, connectionsCheckingInterval: 5_000 },
    requestTimeout: config.http.requestTimeoutMs,
    connectionTimeout: config.http.idleTimeoutMs,
    keepAliveTimeout: config.http.keepAliveTimeoutMs,
    clientErrorHandler: answerClientError,
  }).withTypeProvider<ZodTypeProvider>();
  const routes: TRouteEntry[] = [];
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      routes.push({
        method,
        url: route.url,
        isPublic: route.config?.public === true,
        isCsrfExempt: route.config?.csrf === false,
        rateLimit: route.config?.rateLimit,
      });
    }
  });
  app.decorate('routeInventory', routes);
  // A JSON content type with no body at all, as clients send a bodiless POST (pause,
  // resume, resend to unknown: issue 30), is a request without a body, not a malformed one:
  // it parses as nothing, so a route that needs a body still answers 422 saying so instead of
  // Fastify's 400. Any other body goes through Fastify's own parser (secure-json-parse,
  // prototype and constructor poisoning refused, as by default).
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') return done(null, undefined);
    parseJson(request, body as string, done);
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(zodResponseSerializer);
  app.setErrorHandler(handleError);

  await app.register(fastifyCookie);
  await app.register(fastifySwagger, {
    openapi: {
      info: { title: 'Sendwell API', version: '1.0.0' },
      components: {
        securitySchemes: {
          // Issue 48 §2: a route an integrator may call says which scope its key needs (`x-api-key-scope`).
          apiKey: {
            type: 'http',
            scheme: 'bearer',
            description:
              "An API key from Settings → API keys (`sw_…`). A route answers a key only when its scope (`x-api-key-scope`) is one of the key's.",
          },
          session: {
            type: 'apiKey',
            in: 'cookie',
            name: 'sendwell_session',
            description: 'The web app’s session (state-changing calls also need the `X-CSRF-Token` header).',
          },
        },
      },
    },
    transform: jsonSchemaTransform,
  });
  await app.register(fastifyWebsocket, { options: { maxPayload: 64 * 1024 } });
  await app.register(httpSecurity, { platform });

  const csp = contentSecurityPolicy(config.stripe !== null);
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'same-origin');
    reply.header('x-frame-options', 'SAMEORIGIN');
    if (isApiRequest(request)) reply.header('cache-control', 'no-store');
    // A page that set a stricter policy of its own (an image at /media/) keeps it.
    else if (!reply.hasHeader('content-security-policy')) reply.header('content-security-policy', csp);
  });

  const metrics = registerMetrics(app, { queue: platform.queue, hub });

  // The spec's Google login path; the flow itself lives under /api with the other account routes.
  app.get('/login/google', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/api/login/google'));
  // The unsubscribe link in every email: a small page of its own, no app, no session.
  // Recipient-facing pages of the modules (the unsubscribe link in every email): no app, no session.
  for (const module of modules) if (module.pages) await app.register(module.pages, { platform });

  await app.register(
    async (api) => {
      for (const module of modules) {
        for (const routes of module.routes ?? []) await api.register(routes, { platform });
      }
      api.get('/docs', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
      // For Prometheus, which holds no session: a bearer token, and nothing at all without one configured.
      api.get('/metrics', { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
        const token = config.metricsToken;
        const given = request.headers.authorization?.replace(/^Bearer /, '') ?? '';
        if (!token || !safeEqual(given, token)) throw notFound();
        reply.header('content-type', metrics.registry.contentType);
        return metrics.registry.metrics();
      });
      api.get(
        REALTIME_PATH.replace(/^\/api/, ''),
        { websocket: true, schema: { hide: true }, preValidation: async (request) => checkOrigin(platform, request) },
        (socket, request) => {
          hub.add(request.session!.userId, request.session!.id, socket);
        },
      );
    },
    { prefix: '/api' },
  );

  const indexFile = path.join(config.webDistDir, 'index.html');
  const hasWebBuild = fs.existsSync(indexFile);
  if (hasWebBuild) {
    await app.register(fastifyStatic, {
      root: config.webDistDir,
      wildcard: false,
      index: false,
      setHeaders: (response, filePath) => {
        // Vite fingerprints everything under assets/; those never change once built.
        if (filePath.includes(`${path.sep}assets${path.sep}`)) {
          response.header('cache-control', 'public, max-age=31536000, immutable');
        }
      },
    });
  } else {
    app.log.warn({ webDistDir: config.webDistDir }, 'web app not built; run `npm run build`');
  }

  app.setNotFoundHandler((request, reply) => {
    if (isApiRequest(request) || request.method !== 'GET' || !hasWebBuild) {
      return handleError(notFound(), request, reply);
    }
    // Client-side routes (/mailing-lists/detail/…) all load the app shell.
    reply.header('cache-control', 'no-cache');
    return reply.sendFile('index.html');
  });

  return app;
};

/**
 * Browsers send the page's Origin on WebSocket upgrades but cookies go with any site's
 * request, so this check is what stops another site from opening a user's channel.
 */
const checkOrigin = async (platform: TPlatform, request: FastifyRequest) => {
  const origin = request.headers.origin;
  const allowed = new Set(platform.config.allowedOrigins);
  if (platform.config.publicUrl) allowed.add(new URL(platform.config.publicUrl).origin);
  let isAllowed = false;
  if (origin) {
    try {
      isAllowed = allowed.has(origin) || new URL(origin).host === request.headers.host;
    } catch {
      isAllowed = false;
    }
  }
  if (!isAllowed) throw new HttpError(403, 'This origin may not open the realtime channel.', 'FORBIDDEN_ORIGIN');
};
