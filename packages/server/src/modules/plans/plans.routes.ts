import { plansApi } from '@sendwell/contracts';
import { moduleRoutes, userOf } from '../../platform/routes';
import { listPlans } from './plans.repository';
import { planRulesOf } from './plans.service';

export const planRoutes = moduleRoutes(['plans'], (serve, platform) => {
  // Public: the registration screen shows the plans before anyone has an account.
  serve(plansApi.packages, { config: { public: true } }, async () => ({
    data: (await listPlans(platform.db)).map((plan) => ({
      id: plan.id,
      name: plan.name,
      price: plan.price_cents / 100,
      isFree: plan.is_free,
      plan_name: plan.plan_name,
      tax: Number(plan.tax_percent),
      allowsScheduling: plan.allows_scheduling,
      allowsAccounts: plan.allows_accounts,
      monthlyCredits: plan.monthly_credits,
      trialCredits: plan.trial_credits,
    })),
  }));

  // The gate every scheduling path holds on the server (a scheduled send, a drip campaign's first mail), asked ahead.
  serve(plansApi.checkSchedule, async (request) => ({
    createSchedule: (await planRulesOf(platform, platform.db, userOf(request))).allows_scheduling,
  }));
});
