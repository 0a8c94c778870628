import { z } from 'zod';
import { ZCreditBalance } from '../credits/credits';
import { defineRoute } from '../http/routes';
import { ZBillingOptions, ZBuyCreditsRequest, ZChangePlanRequest, ZSubscriptionState } from './billing';

/** Plan changes and credit purchases through Stripe. (Stripe's webhook is Stripe's call, not the app's.) */
export const billingApi = {
  options: defineRoute({ method: 'GET', path: '/billing/options', response: ZBillingOptions }),
  subscription: defineRoute({
    method: 'GET',
    path: '/subscription',
    response: z.object({ data: ZSubscriptionState }),
  }),
  changePlan: defineRoute({
    method: 'POST',
    path: '/subscription/change',
    body: ZChangePlanRequest,
    response: z.object({ status: z.literal(true), message: z.string(), data: ZSubscriptionState }),
  }),
  buyCredits: defineRoute({
    method: 'POST',
    path: '/credits/purchase',
    body: ZBuyCreditsRequest,
    response: z.object({ status: z.literal(true), message: z.string(), credit: ZCreditBalance }),
  }),
};
