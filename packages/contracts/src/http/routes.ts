import { z } from 'zod';
import type { TApiKeyScope } from '../api-keys/scopes';

/** Every call the API serves is mounted here; a descriptor's `path` is relative to it. */
export const API_PREFIX = '/api';

export type THttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * One call of the API, as both sides see it: the server registers its handler from it
 * (method, path, schemas) and the web app builds the request from it and reads the answer
 * as its response type. `path` is in Fastify's `:param` form, relative to `/api`, the way
 * the spec names the call.
 */
export type TRoute = {
  method: THttpMethod;
  path: string;
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  /** The 200 answer. A route that answers a document (HTML, CSV) or a redirect says `z.string()`. */
  response: z.ZodType;
  /**
   * The API key scope that may call it (`Authorization: Bearer sw_…`); without one, only a
   * signed-in browser may (issue 48 §2). The server reads it from here, so the OpenAPI
   * document and the check cannot differ.
   */
  scope?: TApiKeyScope;
  /**
   * A GET the spec defines that changes data (a deletion it names as a link): it needs the
   * CSRF token as any POST does, so a page elsewhere cannot make a signed-in browser call it.
   */
  changesState?: true;
};

/** `:id` of a row the signed-in user owns; anything else is a 422 before the handler runs. */
export const ZIdParams = z.object({ id: z.coerce.number().int().positive() });

/** Keeps the literal types (`method`, `path`, each schema) so both sides can infer from them. */
export const defineRoute = <const R extends TRoute>(route: R): R => route;

/** `'/lists/:listId/members/:id'` → `'listId' | 'id'`. */
export type TPathParamNames<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Name | TPathParamNames<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? Name
    : never;

/** The values a caller fills `:param` placeholders with; `{}`-shaped (nothing to fill) when the path has none. */
export type TRoutePathParams<R extends TRoute> = { [K in TPathParamNames<R['path']>]: string | number };

/** What the server answers (the response schema's output: what the serializer writes). */
export type TRouteResponse<R extends TRoute> = z.output<R['response']>;

/** What a caller sends as the body (the body schema's input: the server parses it into its output). */
export type TRouteBody<R extends TRoute> = R['body'] extends z.ZodType ? z.input<R['body']> : never;

/** The query string's fields; values are written as text, so any scalar will do. */
export type TRouteQuery<R extends TRoute> = R['query'] extends z.ZodType
  ? { [K in keyof z.output<R['query']>]?: string | number | boolean | null }
  : never;

/**
 * What a caller passes to call a route: the `:param` values when the path has any (then
 * required), the query when the route reads one, the body when it takes one. `TForm` is
 * the web's multipart alternative to a JSON body (`FormData`).
 */
export type TRouteCall<R extends TRoute, TForm = never> = ([TPathParamNames<R['path']>] extends [never]
  ? { params?: undefined }
  : { params: TRoutePathParams<R> }) &
  (R['query'] extends z.ZodType ? { query?: TRouteQuery<R> } : { query?: undefined }) &
  // A route without a body schema may still read a multipart form itself (file uploads).
  (R['body'] extends z.ZodType ? { body?: TRouteBody<R> | TForm } : { body?: TForm });

const PARAM = /:([A-Za-z_][A-Za-z0-9_]*)/g;

/**
 * The path with each `:param` filled in and URI-encoded, relative to `/api`. A missing value
 * throws: a request to `/lists/undefined/members` would be a 422 at best and the wrong row at worst.
 */
export const fillRoutePath = <R extends TRoute>(route: R, params?: TRoutePathParams<R>): string =>
  route.path.replace(PARAM, (_match, name: string) => {
    const value = (params as Record<string, string | number> | undefined)?.[name];
    if (value === undefined || value === null || value === '') {
      throw new Error(`${route.method} ${route.path} needs a value for :${name}.`);
    }
    return encodeURIComponent(String(value));
  });

/** The absolute path a browser requests: `/api` + the filled-in path. */
export const routeUrl = <R extends TRoute>(route: R, params?: TRoutePathParams<R>): string =>
  `${API_PREFIX}${fillRoutePath(route, params)}`;
