import { accountsApi, testInboxApi, type ZAccountForm } from '@sendwell/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import { HttpError, notFound } from '../../platform/errors';
import { paginate } from '../../platform/paging';
import { routesFor } from '../../platform/routes';
import { safeEqual } from '../../platform/tokens';
import { getUserInformation, publicUrl } from '../auth/auth.service';
import { syncProviderListsJob } from '../lists/lists.jobs';
import { deleteAccount, getAccount, getProviders, listAccounts, saveAccount, sendTestSmtp } from './accounts.service';
import { finishGoogleLogin, GOOGLE_POPUP_REDIRECT_URI, startGoogleLogin } from './google.service';
import { testInboxAnalysis, testInboxRaw } from './test-inbox';

const GOOGLE_STATE_COOKIE = 'sendwell_google_state';

/** A received message's HTML, shown only inside a sandboxed frame: no scripts, no forms, no same-origin. */
/**
 * A received message is shown like a mail client shows it: no script, no form, images
 * from the web and from Sendwell itself (so opening it fires the open pixel, also on a
 * plain-HTTP local run).
 */
const messageHtmlPolicy = (ownOrigin: string) =>
  `sandbox; default-src 'none'; img-src data: https: ${ownOrigin}; style-src 'unsafe-inline'; font-src data:`;

export const accountRoutes: FastifyPluginAsyncZod<{ platform: TPlatform }> = async (app, { platform }) => {
  const serve = routesFor(app, ['accounts']);
  const serveInbox = routesFor(app, ['test inbox']);

  serve(accountsApi.list, async (request) => ({ data: await listAccounts(platform, request.session!.userId) }));

  serve(accountsApi.providers, async (request) => {
    const user = await getUserInformation(platform, request.session!.userId);
    return getProviders(platform, user.id, user.email);
  });

  const saveLimit = { rateLimit: { name: 'account-save', limit: 30, windowSeconds: 600, per: 'user' as const } };
  /** Saves, then brings in the domain's Mailgun lists in the background when the account asks for it. */
  const save = async (userId: number, accountId: number | undefined, form: z.output<typeof ZAccountForm>) => {
    const account = await saveAccount(platform, userId, accountId, form);
    const isImporting = account.provider === 'mailgun' && account.getList;
    if (isImporting) await platform.queue.enqueue(syncProviderListsJob, { userId, accountId: account.id });
    return {
      status: true as const,
      message: isImporting
        ? 'Your sending account has been saved. Its Mailgun mailing lists are being imported.'
        : 'Your sending account has been saved.',
      data: account,
    };
  };
  serve(accountsApi.create, { config: saveLimit }, async (request) =>
    save(request.session!.userId, undefined, request.body),
  );
  serve(accountsApi.update, { config: saveLimit }, async (request) =>
    save(request.session!.userId, request.params.id, request.body),
  );

  // The spec's call for a Google login made in a popup by Google's JavaScript code client:
  // the page posts the code it got, the server trades it. The web app itself uses the
  // redirect flow below (/login/google), which needs no Google script on our pages. The
  // session and CSRF token say whose account it becomes, as the state cookie does there.
  serve(accountsApi.createGoogleAccount, { config: saveLimit }, async (request) => {
    const userId = request.session!.userId;
    const { id } = await finishGoogleLogin(platform, userId, request.body.authCode, GOOGLE_POPUP_REDIRECT_URI);
    return {
      status: true as const,
      message: 'Your Google account has been connected.',
      data: await getAccount(platform, userId, id),
    };
  });

  serve(accountsApi.delete, async (request) => {
    await deleteAccount(platform, request.session!.userId, request.params.id);
    return { status: true, message: 'Your sending account has been deleted.' };
  });

  serve(
    accountsApi.sendTestSmtp,
    { config: { rateLimit: { name: 'smtp-test', limit: 20, windowSeconds: 600, per: 'user' } } },
    async (request) => {
      const user = await getUserInformation(platform, request.session!.userId);
      const message = await sendTestSmtp(platform, user, request.body);
      return { status: true as const, result: true as const, message };
    },
  );

  // Google sign-in for a Gmail account: the authorization code flow, its state in a short-lived cookie.
  serve(accountsApi.googleLogin, { hide: true }, async (request, reply) => {
    const user = await getUserInformation(platform, request.session!.userId);
    const { url, state } = startGoogleLogin(platform, user.email);
    reply.setCookie(GOOGLE_STATE_COOKIE, state, {
      path: '/api/login/google',
      httpOnly: true,
      sameSite: 'lax',
      secure: request.protocol === 'https',
      maxAge: 600,
    });
    return reply.redirect(url);
  });

  serve(accountsApi.googleCallback, { hide: true }, async (request, reply) => {
    const expected = request.cookies[GOOGLE_STATE_COOKIE];
    reply.clearCookie(GOOGLE_STATE_COOKIE, { path: '/api/login/google' });
    const back = (outcome: Record<string, string>) =>
      reply.redirect(`/settings/accounts?${new URLSearchParams(outcome).toString()}`);
    const { code, state, error } = request.query;
    if (error) return back({ google_error: 'Google sign-in was cancelled.' });
    if (!code || !state || !expected || !safeEqual(state, expected)) {
      return back({ google_error: 'The Google sign-in expired or did not start here. Please try again.' });
    }
    try {
      const account = await finishGoogleLogin(platform, request.session!.userId, code);
      return back({ google: 'connected', email: account.email });
    } catch (failure) {
      if (failure instanceof HttpError) return back({ google_error: failure.message });
      throw failure;
    }
  });

  serveInbox(testInboxApi.messages, async (request) => {
    const rows = platform.db
      .selectFrom('test_inbox_messages')
      .select(['id', 'mail_from', 'rcpt_to', 'subject', 'size_bytes', 'created_at'])
      .where('user_id', '=', request.session!.userId);
    const page = await paginate(rows, request.query, {
      sortColumns: { created_at: 'created_at', subject: 'subject' },
      searchColumns: ['subject', 'mail_from'],
      tieBreaker: 'id',
    });
    return { data: page.data.map((row) => ({ ...row, created_at: row.created_at.toISOString() })), meta: page.meta };
  });

  const findMessage = async (userId: number, id: number) => {
    const message = await platform.db
      .selectFrom('test_inbox_messages')
      .selectAll()
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!message) throw notFound('This message does not exist.');
    return message;
  };

  serveInbox(testInboxApi.message, async (request) => {
    const message = await findMessage(request.session!.userId, request.params.id);
    return {
      data: {
        id: message.id,
        mail_from: message.mail_from,
        rcpt_to: message.rcpt_to,
        subject: message.subject,
        size_bytes: message.size_bytes,
        created_at: message.created_at.toISOString(),
        text_body: message.text_body,
        has_html: message.html_body !== null,
      },
    };
  });

  serveInbox(testInboxApi.messageHtml, async (request, reply) => {
    const message = await findMessage(request.session!.userId, request.params.id);
    reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-security-policy', messageHtmlPolicy(new URL(publicUrl(platform)).origin))
      .header('x-frame-options', 'SAMEORIGIN');
    return message.html_body ?? '';
  });

  serveInbox(testInboxApi.analysis, async (request) => {
    const found = await testInboxAnalysis(platform, request.session!.userId, request.params.id);
    if (!found) throw notFound('This message does not exist.');
    return { data: { headers: found.headers, report: found.report } };
  });

  serveInbox(testInboxApi.raw, async (request, reply) => {
    const raw = await testInboxRaw(platform, request.session!.userId, request.params.id);
    if (!raw) throw notFound('This message does not exist, or was kept without its raw form.');
    return reply
      .header('content-type', 'message/rfc822')
      .header('content-disposition', `attachment; filename="test-inbox-${request.params.id}.eml"`)
      .send(raw);
  });

  serveInbox(testInboxApi.clear, async (request) => {
    await platform.db.deleteFrom('test_inbox_messages').where('user_id', '=', request.session!.userId).execute();
    return { status: true, message: 'The test inbox is empty.' };
  });
};
