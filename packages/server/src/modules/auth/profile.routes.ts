import { PROFILE_MESSAGES, profileApi } from '@sendwell/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { TPlatform } from '../../platform/context';
import { routesFor } from '../../platform/routes';
import * as profile from './profile.service';

const PER_USER_15_MIN = { windowSeconds: 900, per: 'user' as const };

/** The Profile screen's calls; each change is CSRF-checked (the default) and rate limited. */
export const profileRoutes: FastifyPluginAsyncZod<{ platform: TPlatform }> = async (app, { platform }) => {
  const serve = routesFor(app, ['profile']);

  serve(profileApi.get, async (request) => ({ data: await profile.getProfile(platform, request.session!.userId) }));

  serve(
    profileApi.update,
    { config: { rateLimit: { name: 'profile-update', limit: 30, ...PER_USER_15_MIN } } },
    async (request) => ({
      status: true,
      message: PROFILE_MESSAGES.saved,
      data: await profile.updateProfile(platform, request.session!.userId, request.body),
    }),
  );

  // Each try costs an argon2 check of the current password: few per user.
  serve(
    profileApi.changeEmail,
    { config: { rateLimit: { name: 'profile-email', limit: 10, ...PER_USER_15_MIN } } },
    async (request) => ({
      status: true,
      message: PROFILE_MESSAGES.emailLinkSent(request.body.email),
      data: await profile.requestEmailChange(platform, request.session!.userId, request.body),
    }),
  );

  serve(
    profileApi.confirmEmail,
    {
      config: { public: true, rateLimit: { name: 'profile-email-confirm', limit: 10, windowSeconds: 900, per: 'ip' } },
    },
    async (request) => {
      const email = await profile.confirmEmailChange(platform, request.body.token);
      return { status: true, message: PROFILE_MESSAGES.emailChanged(email), email };
    },
  );

  serve(
    profileApi.changePassword,
    { config: { rateLimit: { name: 'profile-password', limit: 10, ...PER_USER_15_MIN } } },
    async (request) => {
      await profile.changePassword(platform, request.session!, request.body);
      return { status: true, message: PROFILE_MESSAGES.passwordChanged };
    },
  );
};
