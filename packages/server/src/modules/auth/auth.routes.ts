import { authApi } from '@sendwell/contracts';
import { clearSessionCookie, issueCsrfToken, startSession } from '../../platform/http-security';
import { moduleRoutes, perIpLimit } from '../../platform/routes';
import * as auth from './auth.service';

export const authRoutes = moduleRoutes(['auth'], (serve, platform) => {
  serve(authApi.csrf, { config: { public: true } }, async (request, reply) => ({
    token: issueCsrfToken(platform, request, reply),
  }));

  serve(authApi.login, { config: { public: true } }, async (request, reply) => {
    const userId = await auth.authenticate(platform, { ...request.body, ip: request.ip });
    // A session id known before sign-in (fixation) must not survive it.
    if (request.session) await auth.endSession(platform, request.session.id);
    await startSession(platform, request, reply, userId);
    return { status: true as const, data: await auth.getUserInformation(platform, userId) };
  });

  serve(authApi.logout, { config: { public: true } }, async (request, reply) => {
    if (request.session) await auth.endSession(platform, request.session.id);
    clearSessionCookie(request, reply);
    return { status: true, message: 'You have been signed out.' };
  });

  serve(authApi.userInformation, async (request) => ({
    data: await auth.getUserInformation(platform, request.session!.userId),
  }));

  serve(
    authApi.forgotPassword,
    { config: { public: true, ...perIpLimit('forgot-password', 5, 900) } },
    async (request) => {
      await auth.requestPasswordReset(platform, request.body.email);
      return { status: true, message: auth.FORGOT_PASSWORD_MESSAGE };
    },
  );

  serve(
    authApi.resetPassword,
    { config: { public: true, ...perIpLimit('reset-password', 10, 900) } },
    async (request) => {
      await auth.resetPassword(platform, request.body.token, request.body.password);
      return { status: true, message: 'Your password has been reset. You can sign in with it now.' };
    },
  );
});
