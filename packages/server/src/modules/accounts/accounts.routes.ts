import { accountsApi, creditsApi, type ZAccountForm } from '@sendwell/contracts';
import type { z } from 'zod';
import { HttpError } from '../../platform/errors';
import { moduleRoutes, perUserLimit, routesFor, userOf } from '../../platform/routes';
import { safeEqual } from '../../platform/tokens';
import { getUserInformation } from '../auth/auth.service';
import { getBalance } from '../credits/credits.service';
import {
  deleteAccount,
  findAccountKinds,
  getAccount,
  getProviders,
  listAccounts,
  saveAccount,
  saveBreakerLines,
  sendTestSmtp,
} from './accounts.service';
import { finishGoogleLogin, GOOGLE_POPUP_REDIRECT_URI, startGoogleLogin } from './google.service';

const GOOGLE_STATE_COOKIE = 'sendwell_google_state';

export const accountRoutes = moduleRoutes(['accounts'], (serve, platform, app) => {
  // The balance the verification and send screens check before they offer work (usable =
  // userCredit − usedCredit), and whether the user has SMTP and Gmail accounts (spec §3
  // Credit): the credits module's call, answered here where both are known.
  routesFor(app, ['credits'])(creditsApi.creditInfo, async (request) => {
    const userId = userOf(request);
    const [balance, kinds] = await Promise.all([
      getBalance(platform.db, userId),
      findAccountKinds(platform.db, userId),
    ]);
    return {
      status: true as const,
      userCredit: balance.totalCredit,
      usedCredit: balance.usedCredit,
      genericEmails: platform.config.genericEmails,
      isSmtp: kinds.hasSmtp,
      isGmail: kinds.hasGmail,
    };
  });

  serve(accountsApi.list, async (request) => ({ data: await listAccounts(platform, userOf(request)) }));

  serve(accountsApi.providers, async (request) => {
    const user = await getUserInformation(platform, userOf(request));
    return getProviders(platform, user.id, user.email);
  });

  const saveLimit = perUserLimit('account-save', 30);
  /**
   * Saves, then tells the modules that registered for it (the lists module brings in the
   * domain's Mailgun lists in the background when the account asks for it).
   */
  const save = async (userId: number, accountId: number | undefined, form: z.output<typeof ZAccountForm>) => {
    const account = await saveAccount(platform, userId, accountId, form);
    const notes = await Promise.all(
      platform.hooks.accountSaved.map((hook) =>
        hook(platform, { userId, accountId: account.id, provider: account.provider, importLists: account.getList }),
      ),
    );
    return {
      status: true as const,
      message: [
        'Your sending account has been saved.',
        ...notes.flatMap((note) => (note?.message ? [note.message] : [])),
      ].join(' '),
      data: account,
    };
  };
  serve(accountsApi.create, { config: saveLimit }, async (request) => save(userOf(request), undefined, request.body));
  serve(accountsApi.update, { config: saveLimit }, async (request) =>
    save(userOf(request), request.params.id, request.body),
  );

  // The spec's call for a Google login made in a popup by Google's JavaScript code client:
  // the page posts the code it got, the server trades it. The web app itself uses the
  // redirect flow below (/login/google), which needs no Google script on our pages. The
  // session and CSRF token say whose account it becomes, as the state cookie does there.
  serve(accountsApi.createGoogleAccount, { config: saveLimit }, async (request) => {
    const userId = userOf(request);
    const { id } = await finishGoogleLogin(platform, userId, request.body.authCode, GOOGLE_POPUP_REDIRECT_URI);
    return {
      status: true as const,
      message: 'Your Google account has been connected.',
      data: await getAccount(platform, userId, id),
    };
  });

  serve(accountsApi.delete, async (request) => {
    await deleteAccount(platform, userOf(request), request.params.id);
    return { status: true, message: 'Your sending account has been deleted.' };
  });

  serve(accountsApi.breaker, async (request) => ({
    status: true as const,
    message: 'The limits of this account are saved.',
    data: await saveBreakerLines(platform, userOf(request), request.params.id, request.body),
  }));

  serve(accountsApi.sendTestSmtp, { config: perUserLimit('smtp-test', 20) }, async (request) => {
    const user = await getUserInformation(platform, userOf(request));
    const message = await sendTestSmtp(platform, user, request.body);
    return { status: true as const, result: true as const, message };
  });

  // Google sign-in for a Gmail account: the authorization code flow, its state in a short-lived cookie.
  serve(accountsApi.googleLogin, { hide: true }, async (request, reply) => {
    const user = await getUserInformation(platform, userOf(request));
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
      const account = await finishGoogleLogin(platform, userOf(request), code);
      return back({ google: 'connected', email: account.email });
    } catch (failure) {
      if (failure instanceof HttpError) return back({ google_error: failure.message });
      throw failure;
    }
  });
});
