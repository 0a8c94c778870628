import { defineRoute, routeUrl } from '@sendwell/contracts';
import { afterEach, beforeEach, describe, expect, expectTypeOf, it, vi } from 'vitest';
import { z } from 'zod';
import { jsonResponse } from '../test/render';
import { ApiError, api, callRoute, resetCsrfToken } from './api';

const headerOf = (init: RequestInit | undefined, name: string) => new Headers(init?.headers).get(name);

const ZAnswer = z.object({ status: z.boolean(), message: z.string() });
const listThings = defineRoute({ method: 'GET', path: '/things', response: ZAnswer });
const createThing = defineRoute({
  method: 'POST',
  path: '/things',
  body: z.object({ name: z.string() }).optional(),
  response: ZAnswer,
});

describe('api', () => {
  beforeEach(() => resetCsrfToken());
  afterEach(() => vi.unstubAllGlobals());

  it('sends the CSRF token with state-changing requests only, fetching it once', async () => {
    const fetchMock = vi.fn(async (input: RequestInfo | URL, _init?: RequestInit) =>
      String(input) === '/api/csrf'
        ? jsonResponse({ token: 'token-1' })
        : jsonResponse({ status: true, message: 'ok' }),
    );
    vi.stubGlobal('fetch', fetchMock);

    await callRoute(listThings);
    await callRoute(createThing, { body: { name: 'a' } });
    await callRoute(createThing, { body: { name: 'b' } });

    const calls = fetchMock.mock.calls.map(([input, init]) => ({ url: String(input), init }));
    expect(calls.filter((call) => call.url === '/api/csrf')).toHaveLength(1);
    expect(headerOf(calls.find((call) => call.url === '/api/things')?.init, 'x-csrf-token')).toBeNull();
    expect(
      calls.filter((call) => call.init?.method === 'POST').map((call) => headerOf(call.init, 'x-csrf-token')),
    ).toEqual(['token-1', 'token-1']);
  });

  it('fetches a fresh token and retries once when the server refuses the old one', async () => {
    const tokens = ['stale', 'fresh'];
    const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      if (String(input) === '/api/csrf') return jsonResponse({ token: tokens.shift() });
      return headerOf(init, 'x-csrf-token') === 'fresh'
        ? jsonResponse({ status: true, message: 'Saved.' })
        : jsonResponse({ status: false, message: 'CSRF token mismatch.', code: 'CSRF' }, 403);
    });
    vi.stubGlobal('fetch', fetchMock);

    await expect(callRoute(createThing)).resolves.toEqual({ status: true, message: 'Saved.' });
    expect(fetchMock).toHaveBeenCalledTimes(4);
  });

  it('gets a URL built from a descriptor with the shared table’s query, empty values left out', async () => {
    const fetchMock = vi.fn(async (_input: RequestInfo | URL, _init?: RequestInit) => jsonResponse({ data: [] }));
    vi.stubGlobal('fetch', fetchMock);
    await api.get(routeUrl(listThings), { page: 2, search: '', unread: undefined });
    expect(String(fetchMock.mock.calls[0]?.[0])).toBe('/api/things?page=2');
  });

  it('turns a 2xx answer with status false into an ApiError', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => jsonResponse({ status: false, message: 'Not enough credits.' })),
    );

    const error = await callRoute(listThings).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(200);
    expect((error as ApiError).message).toBe('Not enough credits.');
  });
});

describe('callRoute', () => {
  beforeEach(() => resetCsrfToken());
  afterEach(() => vi.unstubAllGlobals());

  const members = defineRoute({
    method: 'GET',
    path: '/lists/:listId/members',
    query: z.object({ page: z.coerce.number(), search: z.string().optional() }),
    response: z.object({ data: z.array(z.object({ email: z.string() })) }),
  });
  const rename = defineRoute({
    method: 'POST',
    path: '/lists/:listId/rename',
    body: z.object({ name: z.string() }),
    response: z.object({ status: z.literal(true), message: z.string() }),
  });
  const signOut = defineRoute({ method: 'POST', path: '/logout', response: z.object({ message: z.string() }) });

  const stub = () => {
    const fetchMock = vi.fn(async (input: RequestInfo | URL, _init?: RequestInit) =>
      String(input) === '/api/csrf'
        ? jsonResponse({ token: 'token-1' })
        : jsonResponse({ status: true, message: 'ok' }),
    );
    vi.stubGlobal('fetch', fetchMock);
    return fetchMock;
  };
  const lastCall = (fetchMock: ReturnType<typeof stub>) => {
    const [input, init] = fetchMock.mock.calls.at(-1) ?? [];
    return { url: String(input), method: init?.method, body: init?.body, csrf: headerOf(init, 'x-csrf-token') };
  };

  it('requests the descriptor’s method at /api + its path, with the query and without empty values', async () => {
    const fetchMock = stub();
    const answer = callRoute(members, { params: { listId: 7 }, query: { page: 2, search: '' } });
    expectTypeOf(answer).resolves.toEqualTypeOf<{ data: { email: string }[] }>();
    await answer;
    expect(lastCall(fetchMock)).toEqual({
      url: '/api/lists/7/members?page=2',
      method: 'GET',
      body: undefined,
      csrf: null,
    });
  });

  it('sends the body as JSON with the CSRF token, and an empty object when a POST has none', async () => {
    const fetchMock = stub();
    await callRoute(rename, { params: { listId: 'a b' }, body: { name: 'News' } });
    expect(lastCall(fetchMock)).toEqual({
      url: '/api/lists/a%20b/rename',
      method: 'POST',
      body: JSON.stringify({ name: 'News' }),
      csrf: 'token-1',
    });
    await callRoute(signOut);
    expect(lastCall(fetchMock)).toMatchObject({ url: '/api/logout', body: '{}' });
  });

  it('sends a FormData body as multipart, as it is', async () => {
    const fetchMock = stub();
    const form = new FormData();
    form.append('name', 'News');
    await callRoute(rename, { params: { listId: 1 }, body: form });
    expect(lastCall(fetchMock).body).toBe(form);
  });

  it('fails like every other call: a 2xx with status false is an ApiError', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => jsonResponse({ status: false, message: 'Not enough credits.' })),
    );
    await expect(callRoute(members, { params: { listId: 1 } })).rejects.toBeInstanceOf(ApiError);
  });
});
