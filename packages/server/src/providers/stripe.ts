import type Stripe from 'stripe';
import type { TStripeConfig } from '../platform/config';

export type TStripe = Stripe;

/**
 * Stripe's SDK, loaded with the first client: an installation without Stripe never loads it
 * (its 218 modules cost every process start, the admin CLI's included, about 0.3 s of CPU).
 */
let sdk: typeof Stripe | undefined;

/** Stripe's own API, or another base (a contract fake in tests) when the operator names one. */
export const createStripe = async (config: TStripeConfig): Promise<TStripe> => {
  sdk ??= (await import('stripe')).default;
  return new sdk(config.secretKey, {
    maxNetworkRetries: 2,
    timeout: 20_000,
    telemetry: false,
    ...(config.apiUrl
      ? {
          host: config.apiUrl.hostname,
          port: config.apiUrl.port || (config.apiUrl.protocol === 'https:' ? 443 : 80),
          protocol: config.apiUrl.protocol === 'http:' ? 'http' : 'https',
        }
      : {}),
  });
};

/**
 * Stripe's word for a refused card, shown to the user as is (spec §8: card errors show the
 * provider's message). With the SDK not loaded there is no client, so no error of Stripe's.
 */
export const isCardError = (error: unknown): error is Stripe.errors.StripeCardError =>
  sdk !== undefined && error instanceof sdk.errors.StripeCardError;

export const isStripeError = (error: unknown): error is Stripe.errors.StripeError =>
  sdk !== undefined && error instanceof sdk.errors.StripeError;

/** Verifies a webhook delivery: signed with our secret, and signed no more than `toleranceSeconds` ago. */
export const constructWebhookEvent = (
  stripe: TStripe,
  payload: Buffer,
  signature: string,
  secret: string,
  toleranceSeconds: number,
): Stripe.Event => stripe.webhooks.constructEvent(payload, signature, secret, toleranceSeconds);
