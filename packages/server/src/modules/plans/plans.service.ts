import type { TPlatform } from '../../platform/context';
import type { Executor } from '../../platform/db';
import { findPlanOfUser } from './plans.repository';

/**
 * What a user's plan allows: its own rules, or everything on a single-company install
 * (`BILLING=off`: no plans, credits or Stripe on any screen or gate). Every gate on a plan
 * (sending accounts, scheduling) reads this.
 */
export const planRulesOf = async (platform: TPlatform, db: Executor, userId: number) => {
  const plan = await findPlanOfUser(db, userId);
  return platform.config.isBillingOn ? plan : { ...plan, allows_scheduling: true, allows_accounts: true };
};

/**
 * What other modules may ask of plans: the plan a user is on and plans by id or name.
 * Plans have no logic of their own yet, so these are the repository's reads.
 */
export {
  findPlan,
  findPlanByName,
  findPlanOfUser,
  insertPlan,
  listPlansWithUsers,
  setUserPlan,
  updatePlan,
} from './plans.repository';
