import { createHmac, randomBytes } from 'node:crypto';

/** A new endpoint's signing secret: `whsec_` and 192 random bits. */
export const newWebhookSecret = () => `whsec_${randomBytes(24).toString('base64url')}`;

/**
 * The `Sendwell-Signature` header of one delivery attempt (Stripe's scheme): the time it was
 * signed and the HMAC-SHA256, keyed with the endpoint's secret, of `<t>.<body>`. The time is
 * inside what is signed, so a receiver that refuses an old `t` refuses a replayed body too.
 */
export const signatureHeader = (secret: string, body: string, at = new Date()) => {
  const timestamp = Math.floor(at.getTime() / 1000);
  const signature = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  return `t=${timestamp},v1=${signature}`;
};
