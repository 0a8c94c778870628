import {
  authApi,
  CSRF_HEADER,
  routeUrl,
  type THttpMethod,
  type TRoute,
  type TRouteCall,
  type TRoutePathParams,
  type TRouteResponse,
} from '@sendwell/contracts';

/** What the server sends with an error: `{message, errors}` for a 422, `{status: false, message, code?}` otherwise. */
export type TApiErrorBody = {
  message: string;
  status?: boolean;
  code?: string;
  errors?: Record<string, string[]>;
  /** What the page needs beyond the message (the ERR_LIMIT dialog's texts and link). */
  errorData?: unknown;
};

/**
 * The server answered, and the answer is a failure: a non-2xx status, or a 2xx whose body says
 * `status: false` (the spec's soft failure). A network failure is not an ApiError; fetch's own
 * TypeError passes through.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly body: TApiErrorBody;

  constructor(status: number, body: TApiErrorBody) {
    super(body.message);
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
  }
}

export type TQueryParams = Record<string, string | number | boolean | null | undefined>;

/** Drops empty values so `?search=` and `?unread=undefined` never reach the server. */
export const toSearchParams = (params: TQueryParams = {}): URLSearchParams => {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null || value === '') continue;
    search.set(key, String(value));
  }
  return search;
};

let csrfToken: Promise<string> | null = null;

const fetchCsrfToken = async (): Promise<string> => {
  const response = await fetch(routeUrl(authApi.csrf), {
    credentials: 'same-origin',
    headers: { Accept: 'application/json' },
  });
  if (!response.ok) throw new ApiError(response.status, await readErrorBody(response));
  const { token } = (await response.json()) as { token: string };
  return token;
};

/** One token per tab, fetched on first use; a failed fetch is forgotten so the next call tries again. */
const getCsrfToken = (): Promise<string> => {
  csrfToken ??= fetchCsrfToken().catch((error: unknown) => {
    csrfToken = null;
    throw error;
  });
  return csrfToken;
};

/** The session changes on sign-in and sign-out, and the token is bound to it. */
export const resetCsrfToken = (): void => {
  csrfToken = null;
};

/** Fetch early so the first form submit does not wait for it. */
export const prefetchCsrfToken = (): void => {
  getCsrfToken().catch(() => {
    // The next state-changing call fetches it again and reports the failure there.
  });
};

const readBody = async (response: Response): Promise<unknown> => {
  const text = await response.text();
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
};

const isErrorBody = (body: unknown): body is TApiErrorBody =>
  typeof body === 'object' && body !== null && typeof (body as { message?: unknown }).message === 'string';

/** A proxy's HTML error page or an empty body still becomes a sentence a person can read. */
const readErrorBody = async (response: Response): Promise<TApiErrorBody> => {
  const body = await readBody(response);
  if (isErrorBody(body)) return body;
  const reason = [response.status, response.statusText].filter(Boolean).join(' ');
  return { status: false, message: `The server could not complete the request (${reason}).` };
};

type TRequestOptions = {
  params?: TQueryParams;
  body?: unknown;
  signal?: AbortSignal;
  /** A GET that changes data (a descriptor's `changesState`) sends the CSRF token too. */
  changesState?: boolean;
};

const send = async (method: THttpMethod, url: string, options: TRequestOptions, isRetry = false): Promise<Response> => {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const isForm = options.body instanceof FormData;
  // A FormData body sets its own multipart boundary.
  if (options.body !== undefined && !isForm) headers['Content-Type'] = 'application/json';
  const needsToken = method !== 'GET' || options.changesState === true;
  if (needsToken) headers[CSRF_HEADER] = await getCsrfToken();

  const query = toSearchParams(options.params).toString();
  const response = await fetch(query ? `${url}?${query}` : url, {
    method,
    headers,
    credentials: 'same-origin',
    body: options.body === undefined ? undefined : isForm ? (options.body as FormData) : JSON.stringify(options.body),
    signal: options.signal,
  });

  // The token expires with the session it was issued for; one fresh token settles it.
  if (response.status === 403 && needsToken && !isRetry) {
    const body = await readBody(response.clone());
    if (isErrorBody(body) && body.code === 'CSRF') {
      resetCsrfToken();
      return send(method, url, options, true);
    }
  }
  return response;
};

const request = async <T>(method: THttpMethod, url: string, options: TRequestOptions = {}): Promise<T> => {
  const response = await send(method, url, options);
  if (!response.ok) throw new ApiError(response.status, await readErrorBody(response));

  const body = await readBody(response);
  if (isErrorBody(body) && body.status === false) throw new ApiError(response.status, body);
  return body as T;
};

/**
 * A GET of a URL already built from a descriptor (`routeUrl`), for the shared table, which is
 * given its source as a URL. Every other call goes through `callRoute`.
 */
export const api = {
  get: <T>(url: string, params?: TQueryParams, signal?: AbortSignal) => request<T>('GET', url, { params, signal }),
};

export type TCallOptions<R extends TRoute> = TRouteCall<R, FormData> & { signal?: AbortSignal };

type TCallArguments<R extends TRoute> =
  object extends TCallOptions<R> ? [options?: TCallOptions<R>] : [options: TCallOptions<R>];

/**
 * Calls one API route from its descriptor in `@sendwell/contracts`: the URL is built from the
 * descriptor's path, and the answer is typed by its response schema (not parsed: the server
 * already wrote it through that schema). CSRF, the retry on a stale token and failures as
 * `ApiError` are those of `request` above.
 */
export const callRoute = <R extends TRoute>(route: R, ...[options]: TCallArguments<R>): Promise<TRouteResponse<R>> => {
  const { params, query, body, signal } = (options ?? {}) as {
    params?: TRoutePathParams<R>;
    query?: TQueryParams;
    body?: unknown;
    signal?: AbortSignal;
  };
  const url = routeUrl(route, params);
  // A POST or PUT always carries a JSON body (`{}` when the call has none); a GET never does.
  const sentBody = body ?? (route.method === 'POST' || route.method === 'PUT' ? {} : undefined);
  return request<TRouteResponse<R>>(route.method, url, {
    params: query,
    body: sentBody,
    signal,
    ...(route.changesState ? { changesState: true } : {}),
  });
};

/**
 * Calls a route that answers a document (an export) and hands it to the browser as a file
 * to save. For a POST whose body must stay out of the URL (an address: access logs keep
 * URLs); a GET export is a plain link.
 */
export const downloadRoute = async <R extends TRoute>(
  route: R,
  options: TCallOptions<R>,
  fileName: string,
): Promise<void> => {
  const { params, body } = options as { params?: TRoutePathParams<R>; body?: unknown };
  const response = await send(route.method, routeUrl(route, params), { body });
  if (!response.ok) throw new ApiError(response.status, await readErrorBody(response));
  const url = URL.createObjectURL(await response.blob());
  const anchor = document.createElement('a');
  anchor.href = url;
  anchor.download = fileName;
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  // The click has started the download by now; the object URL is not needed after it.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
};
