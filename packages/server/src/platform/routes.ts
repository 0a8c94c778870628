import { Readable } from 'node:stream';
import type { TPathParamNames, TRoute } from '@sendwell/contracts';
import type { FastifyContextConfig, FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import type { TPlatform } from './context';
import { unauthenticated } from './errors';
import { type TUploadLimit, uploadRouteOptions } from './uploads';

type TApp = Parameters<FastifyPluginAsyncZod>[0];

type TOutput<S> = S extends z.ZodType ? z.output<S> : undefined;

/**
 * The signed-in user's id. Every /api route is private unless it says so, and
 * `platform/http-security.ts` answers 401 before a private handler runs without a session;
 * a handler that asks on a public route gets the same 401, never a crash.
 */
export const userOf = (request: Pick<FastifyRequest, 'session'>) => {
  if (!request.session) throw unauthenticated();
  return request.session.userId;
};

/** The request a handler sees: params, query and body already parsed by the descriptor's schemas. */
export type TRouteRequest<R extends TRoute> = FastifyRequest<{
  Params: R['params'] extends z.ZodType ? z.output<R['params']> : { [K in TPathParamNames<R['path']>]: string };
  Querystring: TOutput<R['query']>;
  Body: TOutput<R['body']>;
}>;

/** Answers the descriptor's response, or the reply itself after a redirect or a raw document. */
export type TRouteHandler<R extends TRoute> = (
  request: TRouteRequest<R>,
  reply: FastifyReply,
) => Promise<z.output<R['response']> | FastifyReply>;

export type TServeOptions = {
  /** Who may call it and how often (`public`, `csrf`, `rateLimit`): what `platform/http-security.ts` reads. */
  config?: FastifyContextConfig;
  /** Left out of the OpenAPI document (browser redirects). */
  hide?: boolean;
  /** Bytes a JSON body may have, where a route takes more than Fastify's default 1 MiB. */
  bodyLimit?: number;
  /**
   * An upload route (a file, or a file's rows): its body is refused at once from its
   * `Content-Length` when over the limit, read no further than the limit, and refused when
   * compressed or cut short (`platform/uploads.ts`).
   */
  upload?: TUploadLimit;
};

/**
 * Registers handlers for descriptors from `@sendwell/contracts`: the method, the path and the
 * params, query, body and response schemas all come from the descriptor the web app calls
 * through, so the two cannot drift. One per routes plugin, with its OpenAPI tags:
 *
 * ```ts
 * const serve = routesFor(app, ['auth']);
 * serve(authApi.login, { config: { public: true } }, async (request, reply) => …);
 * ```
 */
export const routesFor = (app: TApp, tags: string[]) => {
  function serve<R extends TRoute>(route: R, handler: TRouteHandler<R>): void;
  function serve<R extends TRoute>(route: R, options: TServeOptions, handler: TRouteHandler<R>): void;
  function serve<R extends TRoute>(
    route: R,
    optionsOrHandler: TServeOptions | TRouteHandler<R>,
    maybeHandler?: TRouteHandler<R>,
  ): void {
    const options = typeof optionsOrHandler === 'function' ? {} : optionsOrHandler;
    const handler = typeof optionsOrHandler === 'function' ? optionsOrHandler : maybeHandler;
    app.route({
      method: route.method,
      url: route.path,
      // The scope an API key needs (issue 48 §2): `http-security.ts` reads it from the route it matched.
      config: {
        ...options.config,
        ...(route.scope ? { apiKeyScope: route.scope } : {}),
        ...(route.changesState ? { isStateChangingGet: true } : {}),
      },
      ...(options.bodyLimit ? { bodyLimit: options.bodyLimit } : {}),
      ...(options.upload ? uploadRouteOptions(options.upload) : {}),
      schema: {
        tags,
        ...(options.hide ? { hide: true } : {}),
        // The OpenAPI document says which scope a key needs, and that a signed-in browser may call it too.
        ...(route.scope
          ? {
              security: [{ apiKey: [] }, { session: [] }],
              description: `API key scope: \`${route.scope}\` (or a signed-in session).`,
              'x-api-key-scope': route.scope,
            }
          : {}),
        ...(route.params ? { params: route.params } : {}),
        ...(route.query ? { querystring: route.query } : {}),
        ...(route.body ? { body: route.body } : {}),
        response: { 200: route.response },
      },
      // The descriptor's schemas type the request; Fastify's own generics cannot follow a
      // descriptor chosen at the call site, so the handler is handed over as it is typed here.
      handler: handler as never,
    });
  }
  return serve;
};

export type TServe = ReturnType<typeof routesFor>;

/** A module's routes as `modules/index.ts` registers them (under /api), given the platform. */
export type TRoutesPlugin = FastifyPluginAsyncZod<{ platform: TPlatform }>;

/**
 * A module's routes plugin: `serve` under the module's OpenAPI tags, the platform, and the
 * plugin's own Fastify instance for what is not a descriptor (a raw page, a content parser).
 *
 * ```ts
 * export const listRoutes = moduleRoutes(['lists'], (serve, platform) => {
 *   serve(listsApi.list, async (request) => listLists(platform, userOf(request), request.query));
 * });
 * ```
 */
export const moduleRoutes =
  (tags: string[], register: (serve: TServe, platform: TPlatform, app: TApp) => void | Promise<void>): TRoutesPlugin =>
  async (app, { platform }) => {
    await register(routesFor(app, tags), platform, app);
  };

/**
 * A state-changing route's limit per signed-in user (a signed-out caller counts by address):
 * `limit` calls in a window of `windowSeconds`, ten minutes unless said. Put in `config`.
 */
export const perUserLimit = (name: string, limit: number, windowSeconds = 600) => ({
  rateLimit: { name, limit, windowSeconds, per: 'user' as const },
});

/** A public route's limit per client address: `limit` calls in a window of `windowSeconds`. */
export const perIpLimit = (name: string, limit: number, windowSeconds: number) => ({
  rateLimit: { name, limit, windowSeconds, per: 'ip' as const },
});

/**
 * The config of a post a person makes from an email's link or from a form on any site (an
 * unsubscribe, a signup, a confirmation): public, without CSRF (the page it comes from
 * cannot hold our token), `limit` posts a minute per client address.
 */
export const recipientPostConfig = (name: string, limit: number) => ({
  public: true,
  csrf: false,
  ...perIpLimit(name, limit, 60),
});

/**
 * Answers a CSV file to download: a whole document, or chunks streamed as they are made (an
 * export read slice by slice), so a long export never sits whole in memory.
 */
export const sendCsv = (reply: FastifyReply, fileName: string, body: string | AsyncIterable<string | Uint8Array>) =>
  reply
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${fileName}"`)
    .send(typeof body === 'string' ? body : Readable.from(body));
