import multipart from '@fastify/multipart';
import { ZRegisterRequest, ZRegisterResponse } from '@sendwell/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import { startSession } from '../../platform/http-security';
import { endSession } from '../auth/auth.service';
import { issueChallenge } from './captcha.service';
import { register } from './registration.service';

const ZChallenge = z.object({
  parameters: z.object({
    algorithm: z.string(),
    nonce: z.string(),
    salt: z.string(),
    cost: z.number(),
    keyLength: z.number(),
    keyPrefix: z.string(),
    keySignature: z.string().optional(),
    expiresAt: z.number().optional(),
  }),
  signature: z.string().optional(),
});

export const registrationRoutes: FastifyPluginAsyncZod<{ platform: TPlatform }> = async (app, { platform }) => {
  // The spec sends registration as a form; fields only, no files.
  await app.register(multipart, {
    attachFieldsToBody: 'keyValues',
    limits: { files: 0, fields: 20, fieldSize: 20_000, parts: 20 },
  });

  app.get(
    '/captcha/challenge',
    {
      config: { public: true, rateLimit: { name: 'captcha', limit: 60, windowSeconds: 60, per: 'ip' } },
      schema: { tags: ['registration'], response: { 200: ZChallenge } },
    },
    async () => issueChallenge(platform),
  );

  app.post(
    '/register-with-subscribe',
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
      schema: { tags: ['registration'], body: ZRegisterRequest, response: { 200: ZRegisterResponse } },
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
};
