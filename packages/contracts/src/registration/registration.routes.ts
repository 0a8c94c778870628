import { z } from 'zod';
import { ZRegisterRequest, ZRegisterResponse } from '../billing/billing';
import { defineRoute } from '../http/routes';

/** An ALTCHA challenge, as the widget reads it. */
export const ZCaptchaChallenge = z.object({
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

export const registrationApi = {
  /** Fetched by the ALTCHA widget itself, from the URL the page gives it. */
  captchaChallenge: defineRoute({ method: 'GET', path: '/captcha/challenge', response: ZCaptchaChallenge }),
  /** The spec sends it as a form (multipart); JSON is taken too. */
  register: defineRoute({
    method: 'POST',
    path: '/register-with-subscribe',
    body: ZRegisterRequest,
    response: ZRegisterResponse,
  }),
};
