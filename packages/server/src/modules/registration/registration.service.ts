import type { ZRegisterRequest } from '@sendwell/contracts';
import { DEFAULT_FREE_PLAN_ID, PRODUCT_NAME, REGISTRATION_MESSAGES, referredPlanName } from '@sendwell/contracts';
import type { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import type { Executor } from '../../platform/db';
import { fieldError, HttpError } from '../../platform/errors';
import { createUser } from '../auth/auth.service';
import { cancelOrphanSubscription, requirePaidPlanPrice, subscribeNewUser } from '../billing/billing.service';
import { findPlan, findPlanByName } from '../plans/plans.service';
import { consumeSolution } from './captcha.service';

type TRegistration = z.output<typeof ZRegisterRequest>;

/** The chosen plan; without one, the referred plan for a referred sign-up and the free plan otherwise (spec §9). */
const resolvePlan = async (db: Executor, input: TRegistration) => {
  const plan = input.package_id
    ? await findPlan(db, input.package_id)
    : input.referred_by
      ? ((await findPlanByName(db, referredPlanName(PRODUCT_NAME))) ?? (await findPlan(db, DEFAULT_FREE_PLAN_ID)))
      : await findPlan(db, DEFAULT_FREE_PLAN_ID);
  if (!plan) throw fieldError('package_id', REGISTRATION_MESSAGES.package);
  return plan;
};

/**
 * A visitor becomes a user. The captcha is spent first, so nothing else (not even whether
 * the email is taken) answers a script. A paid plan takes the card inside the transaction
 * that creates the user: a refused card leaves no account behind.
 */
export const register = async (
  platform: TPlatform,
  input: TRegistration,
): Promise<{ userId: number; customerId: string | null }> => {
  // The operator adds users on a closed install (the admin CLI); the page says so before anyone fills it in.
  if (!platform.config.isRegistrationOpen)
    throw new HttpError(403, REGISTRATION_MESSAGES.closed, 'REGISTRATION_CLOSED');
  await consumeSolution(platform, platform.db, input.altcha);
  // Without billing there is one way in: the free plan (whose gates `planRulesOf` opens), no card.
  const plan = platform.config.isBillingOn
    ? await resolvePlan(platform.db, input)
    : await resolvePlan(platform.db, { ...input, package_id: undefined, referred_by: undefined });
  if (!plan.is_free) {
    requirePaidPlanPrice(platform, plan);
    if (!input.stripeToken) throw fieldError('stripeToken', REGISTRATION_MESSAGES.card);
  }
  let payment: { customerId: string; subscriptionId: string } | null = null;
  try {
    const user = await createUser(
      platform,
      {
        name: input.name,
        email: input.email,
        password: input.password,
        planId: plan.id,
        referredBy: input.referred_by,
        timeZone: input.time_zone,
      },
      plan.is_free
        ? undefined
        : async (trx, created) => {
            payment = await subscribeNewUser(platform, trx, created, plan, input.stripeToken!);
          },
    );
    return { userId: user.id, customerId: (payment as { customerId: string } | null)?.customerId ?? null };
  } catch (error) {
    // Stripe took the subscription but the account was not committed: give it back.
    const taken = payment as { subscriptionId: string } | null;
    if (taken) await cancelOrphanSubscription(platform, taken.subscriptionId);
    throw error;
  }
};
