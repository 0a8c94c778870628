import type { TPlan } from '../features/billing/billing.queries';

/** A plan as `GET /api/packages` describes it. */
export const buildPlan = (overrides: Partial<TPlan> = {}): TPlan => ({
  id: 2,
  name: 'Free',
  price: 0,
  isFree: true,
  plan_name: 'sendwell-free',
  tax: 0,
  allowsScheduling: false,
  allowsAccounts: false,
  monthlyCredits: 0,
  trialCredits: 300,
  ...overrides,
});

/** The default free plan (id 2) and a paid Pro plan (id 3). */
export const PLANS: TPlan[] = [
  buildPlan(),
  buildPlan({
    id: 3,
    name: 'Pro',
    price: 19,
    isFree: false,
    plan_name: 'sendwell-pro',
    allowsScheduling: true,
    allowsAccounts: true,
    monthlyCredits: 5000,
    trialCredits: 0,
  }),
];
