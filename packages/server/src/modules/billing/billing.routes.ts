import { billingApi, CREDIT_PACKS } from '@sendwell/contracts';
import { z } from 'zod';
import { HttpError, notFound } from '../../platform/errors';
import { moduleRoutes, perUserLimit, userOf } from '../../platform/routes';
import { constructWebhookEvent } from '../../providers/stripe';
import { getBalance } from '../credits/credits.service';
import { buyCredits, changePlan, getSubscriptionState, handleStripeEvent } from './billing.service';

/** Stripe's recommended window: a signed delivery older than this is refused as a replay. */
const WEBHOOK_TOLERANCE_SECONDS = 300;

export const billingRoutes = moduleRoutes(['billing'], async (serve, platform, app) => {
  serve(billingApi.options, { config: { public: true } }, async () => ({
    billing: platform.config.isBillingOn,
    registration: platform.config.isRegistrationOpen ? ('open' as const) : ('closed' as const),
    stripePublishableKey: platform.config.stripe?.publishableKey ?? null,
    creditPacks: CREDIT_PACKS.map((pack) => ({ ...pack })),
  }));

  // A single-company install (`BILLING=off`) sells nothing: its plan and credit calls are not
  // there, before their bodies are read.
  const sold = new Set<string>(
    [billingApi.subscription, billingApi.changePlan, billingApi.buyCredits].map((route) => route.path),
  );
  app.addHook('preValidation', async (request) => {
    if (!platform.config.isBillingOn && sold.has(request.routeOptions.url?.replace(/^\/api/, '') ?? ''))
      throw notFound();
  });

  serve(billingApi.subscription, async (request) => {
    return { data: await getSubscriptionState(platform.db, userOf(request)) };
  });

  serve(billingApi.changePlan, { config: perUserLimit('plan-change', 10) }, async (request) => {
    const data = await changePlan(platform, userOf(request), request.body);
    return { status: true as const, message: 'Your plan has been changed.', data };
  });

  serve(billingApi.buyCredits, { config: perUserLimit('credit-purchase', 10) }, async (request) => {
    const userId = userOf(request);
    await buyCredits(platform, userId, request.body);
    return {
      status: true as const,
      message: `${request.body.credits.toLocaleString('en-US')} credits were added to your balance.`,
      credit: await getBalance(platform.db, userId),
    };
  });

  // Stripe signs the exact bytes it sent, so this route reads its body raw.
  await app.register(async (webhooks) => {
    webhooks.removeContentTypeParser('application/json');
    webhooks.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) =>
      done(null, body),
    );
    webhooks.post(
      '/billing/stripe-webhook',
      {
        config: { public: true, csrf: false },
        schema: {
          tags: ['billing'],
          response: { 200: z.object({ received: z.literal(true), duplicate: z.boolean() }) },
        },
      },
      async (request) => {
        const stripe = platform.stripe;
        const secret = platform.config.stripe?.webhookSecret;
        if (!stripe || !secret) throw notFound();
        const signature = request.headers['stripe-signature'];
        if (typeof signature !== 'string' || !Buffer.isBuffer(request.body)) {
          throw new HttpError(400, 'The webhook is not signed.', 'BAD_SIGNATURE');
        }
        let event: ReturnType<typeof constructWebhookEvent>;
        try {
          event = constructWebhookEvent(stripe, request.body, signature, secret, WEBHOOK_TOLERANCE_SECONDS);
        } catch {
          throw new HttpError(400, 'The webhook signature is invalid or too old.', 'BAD_SIGNATURE');
        }
        const outcome = await handleStripeEvent(platform, event);
        request.log.info({ event: event.id, type: event.type, outcome }, 'Stripe event');
        return { received: true as const, duplicate: outcome === 'duplicate' };
      },
    );
  });
});
