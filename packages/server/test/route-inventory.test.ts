import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, startTestApp, type TTestApp } from './app';

/**
 * Routes that answer without a session. Adding one here is a security decision: the
 * test fails until the route and this list agree.
 */
const PUBLIC_ROUTES = [
  'GET /api/health',
  'GET /api/csrf',
  'POST /api/login',
  'POST /api/logout',
  'POST /api/forgot-password',
  'POST /api/reset-password',
  // The link that confirms a new email: its token says whose email changes.
  'POST /api/settings/profile/email/confirm',
  // The old address's undo link: reading that mailbox is the proof, not the password (R41).
  'POST /api/settings/profile/email/undo',
  'GET /api/docs',
  'GET /api/metrics',
  'GET /api/packages',
  'GET /api/billing/options',
  'GET /api/captcha/challenge',
  'POST /api/register-with-subscribe',
  'POST /api/contact-us',
  'POST /api/billing/stripe-webhook',
  'POST /api/unsubscribe/:token',
  // Signup forms (issue 48): a form on any site, the confirmation link's button, the
  // preferences page. No session to ride on; captcha, honeypot and limits instead.
  'POST /api/subscribe/:key',
  'POST /api/subscribe/confirm/:token',
  'POST /api/preferences/:token',
  'GET /api/t/o/:token/:sig',
  'GET /api/t/c/:token/:linkId/:sig',
  'POST /api/webhooks/mailgun/:accountId',
  // The ticket service of spec §7: its own bearer key and project id, no session.
  'GET /api/ticket-service/tickets/:email',
  'GET /api/ticket-service/tickets/details/:id',
  'PUT /api/ticket-service/tickets/send-message/:id',
  'POST /api/ticket-service/tickets/create',
].sort();

/** Routes a browser cannot reach with our CSRF token: only callers that hold no cookie of ours. */
const CSRF_EXEMPT_ROUTES = [
  'PUT /api/ticket-service/tickets/send-message/:id',
  'POST /api/ticket-service/tickets/create',
  'POST /api/billing/stripe-webhook',
  'POST /api/webhooks/mailgun/:accountId',
  'POST /api/unsubscribe/:token',
  // A signup form posted from another site cannot carry our token; the links carry their own.
  'POST /api/subscribe/:key',
  'POST /api/subscribe/confirm/:token',
  'POST /api/preferences/:token',
];

let t: TTestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const apiRoutes = () =>
  t.app.routeInventory.filter((route) => route.url.startsWith('/api/') && !['HEAD', 'OPTIONS'].includes(route.method));

describe('route inventory', () => {
  it('has exactly the allow-listed public routes', () => {
    const isPublic = apiRoutes()
      .filter((route) => route.isPublic)
      .map((route) => `${route.method} ${route.url}`)
      .sort();
    expect(isPublic).toEqual(PUBLIC_ROUTES);
  });

  it('exempts only provider webhooks and one-click unsubscribes (RFC 8058) from CSRF', () => {
    const exempt = apiRoutes()
      .filter((route) => route.isCsrfExempt)
      .map((route) => `${route.method} ${route.url}`);
    // In any order: the order routes are registered in means nothing.
    expect([...exempt].sort()).toEqual([...CSRF_EXEMPT_ROUTES].sort());
  });

  it('answers 401 without a session on every other /api route, with a valid CSRF token', async () => {
    const agent = createAgent(t.app);
    const privateRoutes = apiRoutes().filter((route) => !route.isPublic);
    expect(privateRoutes.length).toBeGreaterThan(3);
    for (const route of privateRoutes) {
      // Path parameters get a plausible id so the route itself is reached.
      const url = route.url.replace(/:\w+/g, '1');
      const method = route.method as 'GET' | 'POST' | 'PUT' | 'DELETE';
      const response =
        method === 'GET'
          ? await agent.get(url)
          : method === 'DELETE'
            ? await agent.delete(url)
            : method === 'PUT'
              ? await agent.put(url, {})
              : await agent.post(url, {});
      expect({ route: `${route.method} ${route.url}`, status: response.statusCode }).toEqual({
        route: `${route.method} ${route.url}`,
        status: 401,
      });
      expect(response.body).not.toContain('"data"');
    }
  });

  it('answers unknown /api paths with a JSON 404', async () => {
    const response = await t.app.inject({ url: '/api/no-such-thing' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ status: false, message: 'Not found.' });
  });

  it('serves the OpenAPI document generated from the route schemas', async () => {
    const response = await t.app.inject({ url: '/api/docs' });
    expect(response.statusCode).toBe(200);
    const document = response.json();
    expect(document.openapi).toMatch(/^3\./);
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/api/login', '/api/notifications']));
  });
});
