import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import { notFound } from '../../platform/errors';
import { recipientPostConfig, type TRoutesPlugin } from '../../platform/routes';
import { receiveMailgunWebhook, ZMailgunWebhook } from './mailgun-webhooks';
import { PIXEL, recordClick, recordOpen } from './tracking';
import { findByToken, isToken, unsubscribe } from './unsubscribe';

const ZToken = z.object({ token: z.string().max(64) });
/**
 * The log level of routes machines call by the thousand a second (tracking, provider
 * webhooks): no info line per request (Fastify's two lines were an eighth of a webhook's
 * CPU, B8). Their warnings and errors are still logged, and every request is counted by
 * route and status in /metrics.
 */
const MACHINE_TRAFFIC_LOG_LEVEL = 'warn';
const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

/** The small page a recipient sees: no script, no session, the product's colours. */
export const unsubscribePage = (title: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;background:#f4f6fb;margin:0;display:grid;place-items:center;min-height:100vh}
main{background:#fff;border-radius:12px;padding:32px 40px;max-width:440px;box-shadow:0 2px 12px #0001;text-align:center}
h1{font-size:20px;margin:0 0 12px}p{color:#444;line-height:1.5}button{background:#4263eb;color:#fff;border:0;border-radius:8px;padding:10px 20px;font-size:15px;cursor:pointer}</style>
</head><body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;

export const unsubscribeDone = (email: string, sender: string) =>
  unsubscribePage(
    'You are unsubscribed',
    `<p>${escapeHtml(email)} will get no more emails from ${escapeHtml(sender)}.</p>`,
  );

/**
 * `POST /api/unsubscribe/{token}`: the RFC 8058 one-click request mail providers send
 * (`List-Unsubscribe=One-Click`), and the unsubscribe page's button. The token is the
 * capability: public, no session, no CSRF token (mail providers have none).
 */
export const recipientRoutes: TRoutesPlugin = async (app, { platform }) => {
  // Opens and clicks arrive through mailbox providers' image proxies, a few addresses for
  // millions of readers: a generous limit, counted in memory (each hit is signed anyway).
  const trackingLimit = {
    name: 'tracking',
    limit: 20_000,
    windowSeconds: 60,
    per: 'ip' as const,
    store: 'memory' as const,
  };
  // The open pixel: always the same image, whatever the id, so it tells a prober nothing.
  app.get(
    '/t/o/:token/:sig',
    {
      config: { public: true, rateLimit: trackingLimit },
      logLevel: MACHINE_TRAFFIC_LOG_LEVEL,
      schema: { hide: true, params: z.object({ token: z.string().max(64), sig: z.string().max(64) }) },
    },
    async (request, reply) => {
      await recordOpen(platform, request.params.token, request.params.sig.replace(/\.gif$/, ''));
      return reply.header('content-type', 'image/gif').header('cache-control', 'no-store, max-age=0').send(PIXEL);
    },
  );
  // A tracked link: redirects only to the stored target of the recipient's own send (R16).
  app.get(
    '/t/c/:token/:linkId/:sig',
    {
      config: { public: true, rateLimit: trackingLimit },
      logLevel: MACHINE_TRAFFIC_LOG_LEVEL,
      schema: {
        hide: true,
        params: z.object({
          token: z.string().max(64),
          linkId: z.coerce.number().int().positive(),
          sig: z.string().max(64),
        }),
      },
    },
    async (request, reply) => {
      const target = await recordClick(platform, request.params.token, request.params.linkId, request.params.sig);
      if (!target) {
        return reply
          .code(404)
          .header('content-type', 'text/html; charset=utf-8')
          .send(unsubscribePage('Link not valid', '<p>This link is not valid.</p>'));
      }
      return reply.header('cache-control', 'no-store').redirect(target, 302);
    },
  );

  // One-click requests come form-encoded; only this plugin reads that content type.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) =>
    done(null, body),
  );
  app.post(
    '/unsubscribe/:token',
    {
      config: recipientPostConfig('unsubscribe', 60),
      schema: { tags: ['sending'], params: ZToken },
    },
    async (request, reply) => {
      const done = await unsubscribe(platform, request.params.token);
      if (!done) throw notFound('This unsubscribe link is not valid.');
      return reply
        .header('content-type', 'text/html; charset=utf-8')
        .send(unsubscribeDone(done.email, done.from_name || done.from_address));
    },
  );
};

/**
 * `GET /unsubscribe/{token}`, the link in every email: asks to confirm with one button
 * (a GET alone never unsubscribes, so link scanners cannot do it by fetching the page).
 */
const unsubscribePageHandler = (platform: TPlatform) => async (request: { params: unknown }, reply: FastifyReply) => {
  const { token } = request.params as { token: string };
  const found = isToken(token) ? await findByToken(platform, token) : undefined;
  reply.header('content-type', 'text/html; charset=utf-8').header('cache-control', 'no-store');
  if (!found) {
    return reply
      .code(404)
      .send(unsubscribePage('Link not valid', '<p>This unsubscribe link is not valid or has expired.</p>'));
  }
  const sender = found.from_name || found.from_address;
  if (found.unsubscribed_at) return reply.send(unsubscribeDone(found.email, sender));
  return reply.send(
    unsubscribePage(
      'Unsubscribe?',
      `<p>Stop emails from ${escapeHtml(sender)} to ${escapeHtml(found.email)}?</p>
<form method="post" action="/api/unsubscribe/${token}"><button type="submit">Unsubscribe</button></form>`,
    ),
  );
};

/** The recipient's pages outside /api: the unsubscribe link in every email. */
export const recipientPages: TRoutesPlugin = async (app, { platform }) => {
  app.get('/unsubscribe/:token', { schema: { hide: true } }, unsubscribePageHandler(platform));
};

/** Providers' webhooks: signed, public, no CSRF (a provider holds no cookie). */
export const webhookRoutes: TRoutesPlugin = async (app, { platform }) => {
  app.post(
    '/webhooks/mailgun/:accountId',
    {
      config: {
        public: true,
        csrf: false,
        // Mailgun signs every post and sends thousands a second from a few addresses: counted in
        // memory, not a row per event, and as high as the rate the route is built to take
        // (10,000 a second, QUALITY B8), so a burst is accepted rather than pushed to retries.
        rateLimit: { name: 'mailgun-webhook', limit: 600_000, windowSeconds: 60, per: 'ip', store: 'memory' },
      },
      logLevel: MACHINE_TRAFFIC_LOG_LEVEL,
      schema: {
        tags: ['sending'],
        params: z.object({ accountId: z.coerce.number().int().positive() }),
        body: ZMailgunWebhook,
      },
    },
    async (request, reply) => {
      const answer = await receiveMailgunWebhook(platform, request.params.accountId, request.body, request.ip);
      if (answer.status === 429) reply.header('retry-after', String(answer.retryAfterSeconds));
      return reply.code(answer.status).send({ status: answer.status === 200, message: answer.message });
    },
  );
};
