import { PROFILE_MESSAGES, profileApi } from '@sendwell/contracts';
import { clearSessionCookie } from '../../platform/http-security';
import { moduleRoutes, perIpLimit } from '../../platform/routes';
import * as profile from './profile.service';

const PER_USER_15_MIN = { windowSeconds: 900, per: 'user' as const };

/** The Profile screen's calls; each change is CSRF-checked (the default) and rate limited. */
export const profileRoutes = moduleRoutes(['profile'], (serve, platform) => {
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
      config: { public: true, ...perIpLimit('profile-email-confirm', 10, 900) },
    },
    async (request) => {
      const email = await profile.confirmEmailChange(platform, request.body.token);
      return { status: true, message: PROFILE_MESSAGES.emailChanged(email), email };
    },
  );

  serve(
    profileApi.cancelEmail,
    { config: { rateLimit: { name: 'profile-email-cancel', limit: 30, ...PER_USER_15_MIN } } },
    async (request) => {
      const { message, profile: data } = await profile.cancelEmailChange(platform, request.session!.userId);
      return { status: true, message, data };
    },
  );

  // Public: the old mailbox's reader, signed in or not, without the password.
  serve(
    profileApi.undoEmail,
    { config: { public: true, ...perIpLimit('profile-email-undo', 10, 900) } },
    async (request) => ({ status: true, ...(await profile.undoEmailChange(platform, request.body.token)) }),
  );

  serve(
    profileApi.signOutEverywhere,
    { config: { rateLimit: { name: 'profile-sign-out-everywhere', limit: 10, ...PER_USER_15_MIN } } },
    async (request, reply) => {
      await profile.signOutEverywhere(platform, request.session!.userId);
      clearSessionCookie(request, reply);
      return { status: true, message: PROFILE_MESSAGES.signedOutEverywhere };
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
});
