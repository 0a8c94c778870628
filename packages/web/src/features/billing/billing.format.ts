import { formatCredits } from '../credits/credits.format';
import type { TPlan } from './billing.queries';

/** Shown on every paid plan while the operator has not configured Stripe. */
export const PAID_PLANS_UNAVAILABLE =
  'Paid plans are not available on this server yet. Choose a free plan, or contact us.';

const wholeDollars = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: 0 });
const dollarsAndCents = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

/** Dollars as plans and credit packs show them: `19` → '$19', `9.5` → '$9.50'. */
export const formatPrice = (dollars: number): string =>
  (Number.isInteger(dollars) ? wholeDollars : dollarsAndCents).format(dollars);

/** 'Free' for free plans, otherwise the monthly price. */
export const formatPlanPrice = (plan: TPlan): string => (plan.isFree ? 'Free' : `${formatPrice(plan.price)} / month`);

/**
 * A plan's name and price in one line: 'Pro · $19 / month'. A free plan whose name already
 * says so is named once ('Free', not 'Free · Free').
 */
export const planSummary = (plan: TPlan): string => {
  const price = formatPlanPrice(plan);
  return plan.name.trim().toLowerCase() === price.toLowerCase() ? plan.name : `${plan.name} · ${price}`;
};

/** One line of what a plan includes, for its card. */
export const describePlan = (plan: TPlan): string =>
  [
    plan.monthlyCredits > 0 ? `${formatCredits(plan.monthlyCredits)} credits a month` : null,
    plan.trialCredits > 0 ? `${formatCredits(plan.trialCredits)} trial credits` : null,
    plan.allowsScheduling ? 'scheduled sending' : 'no scheduled sending',
    plan.allowsAccounts ? 'your own sending accounts' : 'no sending accounts',
  ]
    .filter((part): part is string => part !== null)
    .join(' · ')
    .replace(/^./, (first) => first.toUpperCase());

export type TPlanChange = 'Upgrade' | 'Downgrade' | 'Switch';

/** Moving to a dearer plan is an upgrade, to a cheaper one a downgrade. */
export const planChange = (current: TPlan | undefined, target: TPlan): TPlanChange => {
  if (!current || target.price > current.price) return 'Upgrade';
  return target.price < current.price ? 'Downgrade' : 'Switch';
};

/** Stripe's subscription status as a person reads it: 'past_due' → 'Past due'. */
export const subscriptionStatusLabel = (status: string): string => {
  const words = status.replaceAll('_', ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
};
