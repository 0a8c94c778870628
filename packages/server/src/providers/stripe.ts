import Stripe from 'stripe';
import type { TStripeConfig } from '../platform/config';

export type TStripe = Stripe;

/** Stripe's own API, or another base (a contract fake in tests) when the operator names one. */
export const createStripe = (config: TStripeConfig): TStripe =>
  new Stripe(config.secretKey, {
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

/** Stripe's word for a refused card, shown to the user as is (spec §8: card errors show the provider's message). */
export const isCardError = (error: unknown): error is Stripe.errors.StripeCardError =>
  error instanceof Stripe.errors.StripeCardError;

export const isStripeError = (error: unknown): error is Stripe.errors.StripeError =>
  error instanceof Stripe.errors.StripeError;

/** Verifies a webhook delivery: signed with our secret, and signed no more than `toleranceSeconds` ago. */
export const constructWebhookEvent = (
  stripe: TStripe,
  payload: Buffer,
  signature: string,
  secret: string,
  toleranceSeconds: number,
): Stripe.Event => stripe.webhooks.constructEvent(payload, signature, secret, toleranceSeconds);
