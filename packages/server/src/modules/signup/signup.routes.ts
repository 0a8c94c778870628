import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import { HttpError } from '../../platform/errors';
import { recipientPostConfig, type TRoutesPlugin } from '../../platform/routes';
import { findListByFormKey, type TFormList } from '../lists/signup-form.service';
import {
  CAPTCHA_SCRIPT_PATH,
  confirmPage,
  escapeHtml,
  messagePage,
  preferencesPage,
  signupPage,
  type TFormValues,
} from './pages';
import {
  changePreferences,
  confirmSignup,
  findPreferences,
  formValues,
  inspectConfirmation,
  isConfirmationToken,
  submitSignup,
  type TPreferencesAction,
  type TSignupForm,
} from './signup.service';

/**
 * The pages of a list's public form and of every email's preferences link, and the posts
 * they make (issue 48 §1). Posts go to /api (public, CSRF-exempt, limited per client, on
 * the route inventory's lists): a form on another site cannot hold our CSRF token, and
 * none of them acts for a signed-in user. Each answers HTML, or redirects to a page, so a
 * form works without a line of our JavaScript.
 */

/** The same policy as the app's pages, for HTML answered under /api (which gets none by default). */
const PAGE_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "object-src 'none'",
].join('; ');

const html = (reply: FastifyReply, status: number, body: string) =>
  reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('content-security-policy', PAGE_POLICY)
    .send(body);

const notValid = (reply: FastifyReply, text: string) => html(reply, 404, messagePage('Link not valid', [text]));

/** A confirmation link past its week: the form to sign up again from. */
const linkExpired = (reply: FastifyReply, signup: { formKey: string; listName: string }) =>
  html(
    reply,
    410,
    messagePage(
      'This link has expired',
      ['Confirmation links work for a week. Sign up again to get a new one.'],
      `<p><a href="/subscribe/${signup.formKey}">Sign up to ${escapeHtml(signup.listName)}</a></p>`,
    ),
  );

const formNotFound = (reply: FastifyReply) =>
  html(reply, 404, messagePage('Form not found', ['This signup form does not exist (any more).']));

/**
 * A refusal a service words for people (the list's account may no longer send, Mailgun did
 * not answer, a list the person is not on) as a page: a visitor's browser shows it, where
 * the API's JSON would be a page of braces. Anything else is the error handler's (logged,
 * a 500 that says nothing).
 */
const orPage = async (reply: FastifyReply, work: () => Promise<FastifyReply>) => {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    const status = error.statusCode >= 500 ? 503 : error.statusCode;
    return html(reply, status, messagePage('This did not work', [error.message, 'Nothing was changed.']));
  }
};

const ZKey = z.object({ key: z.string().max(64) });
const ZToken = z.object({ token: z.string().max(128) });

/** A form's fields: form-encoded (a plain HTML form) or JSON; anything else reads as empty. */
const formOf = (body: unknown): TSignupForm => {
  if (!body || typeof body !== 'object') return {};
  return Object.fromEntries(
    Object.entries(body as Record<string, unknown>).map(([key, value]) => [
      key,
      typeof value === 'string' ? value : '',
    ]),
  );
};

/** The page an embedded form was on (its Referer), as the consent record names it: no query, no fragment. */
const embeddingPage = (request: FastifyRequest, platform: TPlatform) => {
  const referer = request.headers.referer;
  if (!referer) return '';
  try {
    const url = new URL(referer);
    const own = new URL(platform.config.publicUrl ?? 'http://localhost').host;
    if (url.host === own || url.host === request.headers.host) return '';
    return `${url.origin}${url.pathname}`.slice(0, 150);
  } catch {
    return '';
  }
};

const renderForm = (
  list: TFormList,
  values: TFormValues,
  errors: Record<string, string>,
  origin: { form: 'hosted' | 'embedded'; page: string },
  message?: { kind: 'alert' | 'notice'; text: string },
) =>
  signupPage({
    listName: list.name,
    description: list.description,
    fields: list.form_fields,
    consentText: list.consent_text,
    // This origin's API, whatever address the page was reached by (PUBLIC_URL or another).
    action: `/api/subscribe/${list.form_key}`,
    values,
    errors,
    origin,
    ...(message ? { message } : {}),
  });

/** Where ALTCHA's widget script is, as the `altcha` package ships it (an ES module that defines `<altcha-widget>`). */
const captchaScript = () => {
  const entry = fileURLToPath(import.meta.resolve('altcha'));
  return fs.readFileSync(path.join(path.dirname(entry), 'altcha.min.js'));
};

/** The recipient-facing pages (outside /api): the hosted form, its thanks, the confirmation, the preferences. */
export const signupPages: TRoutesPlugin = async (app, { platform }) => {
  let script: Buffer | null = null;
  app.get(CAPTCHA_SCRIPT_PATH, { schema: { hide: true } }, async (_request, reply) => {
    script ??= captchaScript();
    return reply
      .header('content-type', 'text/javascript; charset=utf-8')
      .header('cache-control', 'public, max-age=86400')
      .send(script);
  });

  app.get('/subscribe/:key', { schema: { hide: true, params: ZKey } }, async (request, reply) => {
    const list = await findListByFormKey(platform.db, request.params.key);
    if (!list) return formNotFound(reply);
    return html(reply, 200, renderForm(list, {}, {}, { form: 'hosted', page: '' }));
  });

  app.get('/subscribe/:key/thanks', { schema: { hide: true, params: ZKey } }, async (request, reply) => {
    const list = await findListByFormKey(platform.db, request.params.key);
    if (!list) return formNotFound(reply);
    return html(
      reply,
      200,
      list.double_opt_in
        ? messagePage('Almost done: check your inbox', [
            `We sent you an email to confirm your subscription to ${list.name}. Open the link in it to start receiving our emails.`,
            'Nothing arrived? Look in your spam folder, or sign up again in ten minutes.',
          ])
        : messagePage('Thank you for subscribing', [`You are subscribed to ${list.name}.`]),
    );
  });

  app.get('/subscribe/confirm/:token', { schema: { hide: true, params: ZToken } }, async (request, reply) => {
    const { token } = request.params;
    const outcome = isConfirmationToken(token)
      ? await inspectConfirmation(platform, token)
      : { kind: 'invalid' as const };
    switch (outcome.kind) {
      case 'invalid':
        return notValid(reply, 'This confirmation link is not valid.');
      case 'expired':
        return linkExpired(reply, outcome);
      case 'already':
      case 'confirmed':
        return html(
          reply,
          200,
          messagePage('You are subscribed', [`Your subscription to ${outcome.listName} is confirmed.`]),
        );
      case 'pending':
        return html(reply, 200, confirmPage(outcome.listName, `/api/subscribe/confirm/${token}`));
    }
  });

  app.get(
    '/preferences/:token',
    { schema: { hide: true, params: ZToken, querystring: z.object({ done: z.string().max(40).optional() }) } },
    async (request, reply) => {
      const found = await findPreferences(platform, request.params.token);
      if (!found) return notValid(reply, 'This link is not valid or has expired.');
      const { recipient, lists } = found;
      const notice = NOTICES[request.query.done as keyof typeof NOTICES];
      return html(
        reply,
        200,
        preferencesPage({
          email: recipient.email,
          sender: recipient.from_name || recipient.from_address,
          name: lists.find((list) => list.fullname)?.fullname ?? '',
          lists: lists.map((list) => ({
            id: Number(list.list_id),
            name: list.list_name,
            description: list.list_description,
            state: list.subscribed ? 'subscribed' : list.unconfirmed ? 'unconfirmed' : 'unsubscribed',
          })),
          action: `/api/preferences/${request.params.token}`,
          ...(notice ? { notice } : {}),
        }),
      );
    },
  );
};

/** What the preferences page says after a change (by the redirect's `done`). */
const NOTICES = {
  leave: 'You are unsubscribed from that list.',
  'leave-all': 'You are unsubscribed from all of this sender’s lists.',
  rename: 'Your name is saved.',
} as const;

/** A visitor's post of a list's form: the thanks page, or the form again (errors, the captcha step, a limit). */
const takeSignup = async (platform: TPlatform, request: FastifyRequest, reply: FastifyReply, list: TFormList) => {
  const body = formOf(request.body);
  const origin =
    body.form === 'hosted'
      ? { form: 'hosted' as const, page: '' }
      : { form: 'embedded' as const, page: String(body.page ?? '') || embeddingPage(request, platform) };
  const answer = await submitSignup(
    platform,
    list,
    { ...body, form: origin.form, page: origin.page },
    { ip: request.ip, userAgent: request.headers['user-agent'] ?? null },
  );
  if (answer.kind === 'done') return reply.code(303).redirect(`/subscribe/${list.form_key}/thanks`);
  const message = answer.message
    ? { kind: answer.status === 200 ? ('notice' as const) : ('alert' as const), text: answer.message }
    : undefined;
  return html(reply, answer.status, renderForm(list, formValues(list, body), answer.errors, origin, message));
};

/** The posts of those pages: public, without CSRF (see above), limited per client address. */
export const signupRoutes: TRoutesPlugin = async (app, { platform }) => {
  // Plain HTML forms post form-encoded; only this plugin reads that content type.
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 64 * 1024 },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );

  app.post(
    '/subscribe/:key',
    {
      // Showing the form again costs little; a signup is counted again, per client and per list, in the service.
      config: recipientPostConfig('signup-form', 120),
      bodyLimit: 64 * 1024,
      schema: { tags: ['lists'], params: ZKey },
    },
    async (request, reply) => {
      const list = await findListByFormKey(platform.db, request.params.key);
      if (!list) return formNotFound(reply);
      return orPage(reply, () => takeSignup(platform, request, reply, list));
    },
  );

  app.post(
    '/subscribe/confirm/:token',
    {
      config: recipientPostConfig('signup-confirm', 60),
      schema: { tags: ['lists'], params: ZToken },
    },
    async (request, reply) => {
      const { token } = request.params;
      return orPage(reply, async () => {
        const outcome = isConfirmationToken(token)
          ? await confirmSignup(platform, token, request.ip)
          : { kind: 'invalid' as const };
        if (outcome.kind === 'invalid') return notValid(reply, 'This confirmation link is not valid.');
        if (outcome.kind === 'expired') {
          return linkExpired(reply, outcome);
        }
        return html(
          reply,
          200,
          messagePage('You are subscribed', [`Thank you: your subscription to ${outcome.listName} is confirmed.`]),
        );
      });
    },
  );

  app.post(
    '/preferences/:token',
    {
      config: recipientPostConfig('preferences', 60),
      schema: { tags: ['lists'], params: ZToken },
    },
    async (request, reply) => {
      const body = formOf(request.body);
      const change: TPreferencesAction | null =
        body.action === 'leave' && /^\d{1,15}$/.test(body.list ?? '')
          ? { action: 'leave', listId: Number(body.list) }
          : body.action === 'leave-all'
            ? { action: 'leave-all' }
            : body.action === 'rename'
              ? {
                  action: 'rename',
                  name: String(body.name ?? '')
                    .trim()
                    .slice(0, 200),
                }
              : null;
      if (!change) {
        return html(reply, 422, messagePage('Nothing changed', ['This request did not say what to change.']));
      }
      return orPage(reply, async () => {
        const notice = await changePreferences(platform, request.params.token, change);
        if (notice === null) return notValid(reply, 'This link is not valid or has expired.');
        return reply.code(303).redirect(`/preferences/${request.params.token}?done=${change.action}`);
      });
    },
  );
};
