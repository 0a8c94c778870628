import multipart from '@fastify/multipart';
import { registrationApi } from '@sendwell/contracts';
import { startSession } from '../../platform/http-security';
import { moduleRoutes, perIpLimit } from '../../platform/routes';
import { endSession } from '../auth/auth.service';
import { issueChallenge } from './captcha.service';
import { register } from './registration.service';

export const registrationRoutes = moduleRoutes(['registration'], async (serve, platform, app) => {
  // The spec sends registration as a form; fields only, no files.
  await app.register(multipart, {
    attachFieldsToBody: 'keyValues',
    limits: { files: 0, fields: 20, fieldSize: 20_000, parts: 20 },
  });

  serve(registrationApi.captchaChallenge, { config: { public: true, ...perIpLimit('captcha', 60, 60) } }, async () =>
    issueChallenge(platform),
  );

  serve(
    registrationApi.register,
    {
      config: {
        public: true,
        rateLimit: {
          name: 'register',
          limit: platform.config.registrationLimitPerIp,
          windowSeconds: 3600,
          per: 'ip',
        },
      },
    },
    async (request, reply) => {
      const { userId, customerId } = await register(platform, request.body);
      // A session the browser had (fixation) must not survive the sign-up.
      if (request.session) await endSession(platform, request.session.id);
      await startSession(platform, request, reply, userId);
      return {
        status: true as const,
        message: 'Welcome to Sendwell! Your account is ready.',
        route: '/',
        stripe_id: customerId,
        user_id: userId,
      };
    },
  );
});
