import {
  ZCsrfResponse,
  ZForgotPasswordRequest,
  ZLoginRequest,
  ZResetPasswordRequest,
  ZStatusMessage,
  ZUserInformation,
} from '@sendwell/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import { clearSessionCookie, issueCsrfToken, startSession } from '../../platform/http-security';
import * as auth from './auth.service';

export const authRoutes: FastifyPluginAsyncZod<{ platform: TPlatform }> = async (app, { platform }) => {
  app.get(
    '/csrf',
    { config: { public: true }, schema: { tags: ['auth'], response: { 200: ZCsrfResponse } } },
    async (request, reply) => ({ token: issueCsrfToken(platform, request, reply) }),
  );

  app.post(
    '/login',
    {
      config: { public: true },
      schema: {
        tags: ['auth'],
        body: ZLoginRequest,
        response: { 200: z.object({ status: z.literal(true), data: ZUserInformation }) },
      },
    },
    async (request, reply) => {
      const userId = await auth.authenticate(platform, { ...request.body, ip: request.ip });
      // A session id known before sign-in (fixation) must not survive it.
      if (request.session) await auth.endSession(platform, request.session.id);
      await startSession(platform, request, reply, userId);
      return { status: true as const, data: await auth.getUserInformation(platform, userId) };
    },
  );

  app.post(
    '/logout',
    { config: { public: true }, schema: { tags: ['auth'], response: { 200: ZStatusMessage } } },
    async (request, reply) => {
      if (request.session) await auth.endSession(platform, request.session.id);
      clearSessionCookie(request, reply);
      return { status: true, message: 'You have been signed out.' };
    },
  );

  app.get(
    '/user-information',
    { schema: { tags: ['auth'], response: { 200: z.object({ data: ZUserInformation }) } } },
    async (request) => ({ data: await auth.getUserInformation(platform, request.session!.userId) }),
  );

  app.post(
    '/forgot-password',
    {
      config: { public: true, rateLimit: { name: 'forgot-password', limit: 5, windowSeconds: 900, per: 'ip' } },
      schema: { tags: ['auth'], body: ZForgotPasswordRequest, response: { 200: ZStatusMessage } },
    },
    async (request) => {
      await auth.requestPasswordReset(platform, request.body.email);
      return { status: true, message: auth.FORGOT_PASSWORD_MESSAGE };
    },
  );

  app.post(
    '/reset-password',
    {
      config: { public: true, rateLimit: { name: 'reset-password', limit: 10, windowSeconds: 900, per: 'ip' } },
      schema: { tags: ['auth'], body: ZResetPasswordRequest, response: { 200: ZStatusMessage } },
    },
    async (request) => {
      await auth.resetPassword(platform, request.body.token, request.body.password);
      return { status: true, message: 'Your password has been reset. You can sign in with it now.' };
    },
  );
};
