import { vi } from 'vitest';
import { jsonResponse } from './render';

type TRoute = (request: { body: BodyInit | null | undefined }) => Response | Promise<Response>;

/**
 * Stubs fetch with answers per `'METHOD /path'`: a function builds the Response, anything else is
 * sent as JSON with status 200. The CSRF token is always there. A call nobody answers fails the
 * test loudly instead of leaving the screen loading.
 */
export const stubApi = (routes: Record<string, unknown>) => {
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input), 'http://localhost');
    const key = `${init?.method ?? 'GET'} ${url.pathname}`;
    if (key === 'GET /api/csrf') return jsonResponse({ token: 'test-token' });
    if (!(key in routes)) throw new Error(`No stubbed answer for ${key}`);
    const route = routes[key];
    return typeof route === 'function' ? (route as TRoute)({ body: init?.body }) : jsonResponse(route);
  });
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
};

/** The calls made to one `'METHOD /path'`, with their bodies. */
export const callsTo = (fetchMock: ReturnType<typeof stubApi>, key: string) =>
  fetchMock.mock.calls
    .filter(
      ([input, init]) => `${init?.method ?? 'GET'} ${new URL(String(input), 'http://localhost').pathname}` === key,
    )
    .map(([, init]) => init?.body);
