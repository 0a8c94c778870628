import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse } from '../test/render';
import { ApiError, api, resetCsrfToken } from './api';

const headerOf = (init: RequestInit | undefined, name: string) => new Headers(init?.headers).get(name);

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

    await api.get('/api/things');
    await api.post('/api/things', { name: 'a' });
    await api.post('/api/things', { name: 'b' });

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

    await expect(api.post('/api/things')).resolves.toEqual({ status: true, message: 'Saved.' });
    expect(fetchMock).toHaveBeenCalledTimes(4);
  });

  it('turns a 2xx answer with status false into an ApiError', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => jsonResponse({ status: false, message: 'Not enough credits.' })),
    );

    const error = await api.get('/api/things').catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(200);
    expect((error as ApiError).message).toBe('Not enough credits.');
  });
});
