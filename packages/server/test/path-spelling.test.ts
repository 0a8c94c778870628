import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TRouteEntry } from '../src/app';
import { seedUser, startTestApp, type TTestApp } from './app';
import { cookieHeader, cookiesOf, rawRequest, type TRawResponse } from './raw-http';

/**
 * R22: the /api security hook (session, CSRF, rate limit) holds under every spelling of a
 * path the router accepts or might accept. Requests are written by hand on a socket, since
 * `app.inject` and fetch would tidy the request line first.
 */

let t: TTestApp;
let port: number;
let webDir: string;

beforeAll(async () => {
  // A web build, so the not-found handler has an app shell it could wrongly answer with.
  webDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sendwell-web-'));
  fs.writeFileSync(path.join(webDir, 'index.html'), '<!doctype html><title>Sendwell</title>');
  t = await startTestApp({ WEB_DIST_DIR: webDir });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as { port: number }).port;
});
afterAll(async () => {
  await t?.close();
  fs.rmSync(webDir, { recursive: true, force: true });
});

const STATE_CHANGING = new Set(['POST', 'PUT', 'DELETE', 'PATCH']);

const apiRoutes = (): TRouteEntry[] =>
  t.app.routeInventory.filter((route) => route.url.startsWith('/api/') && !['HEAD', 'OPTIONS'].includes(route.method));

/** A plausible concrete path: every parameter gets `1`. */
const concrete = (url: string) => url.replace(/:\w+/g, '1');

/** The first letter of every segment as `%xx`: `/%61pi/%66orgot-password`. */
const percentEncoded = (urlPath: string) =>
  urlPath.replace(/\/([a-z])/gi, (_match, letter: string) => `/%${letter.charCodeAt(0).toString(16)}`);

const spellings = (urlPath: string) => [
  { spelling: 'percent-encoded letters', target: percentEncoded(urlPath) },
  { spelling: 'upper case', target: urlPath.toUpperCase() },
  { spelling: 'upper-case prefix', target: urlPath.replace(/^\/api/, '/API') },
  { spelling: 'doubled slashes', target: urlPath.replace(/\//g, '//') },
  { spelling: 'doubled leading slash', target: `/${urlPath}` },
  { spelling: 'absolute form', target: `http://127.0.0.1:${port}${urlPath}` },
  { spelling: 'absolute form, another host', target: `http://sendwell.invalid${percentEncoded(urlPath)}` },
];

type TBrowser = { cookies: Record<string, string>; csrfToken: string };

/** A signed-out browser: its CSRF cookie and the token that goes with it. */
const signedOutBrowser = async (): Promise<TBrowser> => {
  const response = await rawRequest(port, { method: 'GET', target: '/api/csrf' });
  return { cookies: cookiesOf(response), csrfToken: JSON.parse(response.body).token };
};

/** A signed-in browser: session cookie, CSRF cookie and the token bound to the session. */
const signedInBrowser = async (): Promise<TBrowser & { userId: number }> => {
  const user = await seedUser(t.platform);
  const anonymous = await signedOutBrowser();
  const login = await rawRequest(port, {
    method: 'POST',
    target: '/api/login',
    headers: { cookie: cookieHeader(anonymous.cookies), 'x-csrf-token': anonymous.csrfToken },
    body: { email: user.email, password: user.password },
  });
  expect(login.status).toBe(200);
  const cookies = { ...anonymous.cookies, ...cookiesOf(login) };
  const csrf = await rawRequest(port, {
    method: 'GET',
    target: '/api/csrf',
    headers: { cookie: cookieHeader(cookies) },
  });
  return { cookies, csrfToken: JSON.parse(csrf.body).token, userId: user.id };
};

/** Routes whose answer ends the session that called them. */
const SESSION_ENDING = ['/api/settings/profile/sign-out-everywhere'];

const send = (route: TRouteEntry, target: string, headers: Record<string, string>): Promise<TRawResponse> =>
  rawRequest(port, {
    method: route.method,
    target,
    headers,
    ...(STATE_CHANGING.has(route.method) ? { body: {} } : {}),
  });

describe('the /api security hook under any spelling of a path (R22)', () => {
  it('refuses the forgot-password form without a CSRF token however its path is written', async () => {
    const browser = await signedOutBrowser();
    for (const target of ['/%61pi/forgot-password', `http://127.0.0.1:${port}/api/forgot-password`]) {
      const response = await rawRequest(port, {
        method: 'POST',
        target,
        headers: { cookie: cookieHeader(browser.cookies) },
        body: { email: 'someone@example.com' },
      });
      expect({ target, status: response.status }).toEqual({ target, status: 403 });
      expect(JSON.parse(response.body)).toMatchObject({ status: false, code: 'CSRF' });
    }
  });

  it('answers 401 without a session on every private route, under every spelling', async () => {
    const browser = await signedOutBrowser();
    const headers = { cookie: cookieHeader(browser.cookies), 'x-csrf-token': browser.csrfToken };
    const privateRoutes = apiRoutes().filter((route) => !route.isPublic);
    expect(privateRoutes.length).toBeGreaterThan(3);
    const walkedAround: string[] = [];
    for (const route of privateRoutes) {
      for (const { spelling, target } of spellings(concrete(route.url))) {
        const response = await send(route, target, headers);
        // 404: the router did not take this spelling for the route, so nothing ran.
        if (![401, 404].includes(response.status) || response.body.includes('"data"')) {
          walkedAround.push(`${route.method} ${route.url} (${spelling}: ${target}) answered ${response.status}`);
        }
      }
    }
    expect(walkedAround).toEqual([]);
  });

  it('answers 403 without a CSRF token on every state-changing route, under every spelling', async () => {
    const browser = await signedInBrowser();
    const headers = { cookie: cookieHeader(browser.cookies) };
    const routes = apiRoutes().filter((route) => STATE_CHANGING.has(route.method) && !route.isCsrfExempt);
    expect(routes.length).toBeGreaterThan(3);
    const walkedAround: string[] = [];
    for (const route of routes) {
      for (const { spelling, target } of spellings(concrete(route.url))) {
        const response = await send(route, target, headers);
        if (![403, 404].includes(response.status)) {
          walkedAround.push(`${route.method} ${route.url} (${spelling}: ${target}) answered ${response.status}`);
        }
      }
    }
    expect(walkedAround).toEqual([]);
  });

  it('counts a hit on the route’s rate limit for every spelling the router takes', async () => {
    const browser = await signedInBrowser();
    const headers = { cookie: cookieHeader(browser.cookies), 'x-csrf-token': browser.csrfToken };
    // Limits kept in memory cannot be read from here; the same hook counts them.
    const limited = apiRoutes().filter((route) => route.rateLimit && route.rateLimit.store !== 'memory');
    expect(limited.map((route) => route.url)).toEqual(expect.arrayContaining(['/api/forgot-password']));
    const hitsOf = async (name: string) => {
      const { rows } = await sql<{ hits: number }>`
        select coalesce(sum(hits), 0)::int as hits from rate_limit_buckets where key like ${`route:${name}:%`}
      `.execute(t.platform.db);
      return rows[0]!.hits;
    };
    // Fastify's router takes three of the spellings (percent-encoded, both absolute forms) for
    // the route and answers the others 404 before any hook: each of the three must count.
    const reachingSpellings = 3;
    const uncounted: string[] = [];
    // A route that ends the session (sign out everywhere) is sent each spelling from a session
    // of its own, and walked last: the others must still find theirs alive.
    const endsSession = (url: string) => SESSION_ENDING.includes(url);
    const ordered = [...limited].sort((a, b) => Number(endsSession(a.url)) - Number(endsSession(b.url)));
    for (const route of ordered) {
      const before = await hitsOf(route.rateLimit!.name);
      for (const { target } of spellings(concrete(route.url))) {
        if (!endsSession(route.url)) {
          await send(route, target, headers);
          continue;
        }
        const own = await signedInBrowser();
        await send(route, target, { cookie: cookieHeader(own.cookies), 'x-csrf-token': own.csrfToken });
      }
      const counted = (await hitsOf(route.rateLimit!.name)) - before;
      if (counted < reachingSpellings) {
        uncounted.push(`${route.method} ${route.url}: ${counted} of ${reachingSpellings} requests counted`);
      }
    }
    expect(uncounted).toEqual([]);
  });

  it('answers a 404 under any spelling of /api with JSON and no-store, not the app shell', async () => {
    for (const target of ['/api/no-such-thing', '/%61pi/no-such-thing', '//api/no-such-thing', '/API/no-such-thing']) {
      const response = await rawRequest(port, { method: 'GET', target });
      expect({ target, status: response.status }).toEqual({ target, status: 404 });
      expect(JSON.parse(response.body)).toMatchObject({ status: false, message: 'Not found.' });
      expect(response.headers['cache-control']).toBe('no-store');
    }
    const refused = await rawRequest(port, { method: 'GET', target: '/%61pi/user-information' });
    expect(refused.status).toBe(401);
    expect(refused.headers['cache-control']).toBe('no-store');
    // The app's own client-side routes still load the shell.
    const page = await rawRequest(port, { method: 'GET', target: '/mailing-lists' });
    expect(page.status).toBe(200);
    expect(page.body).toContain('<title>Sendwell</title>');
  });
});
