import type { Insertable, Updateable } from 'kysely';
import type { Executor } from '../../platform/db';
import type { PlansTable } from '../../platform/db-schema';

const PLAN_COLUMNS = [
  'id',
  'name',
  'plan_name',
  'price_cents',
  'is_free',
  'tax_percent',
  'allows_scheduling',
  'allows_accounts',
  'monthly_credits',
  'trial_credits',
  'stripe_price_id',
] as const;

export const listPlans = (db: Executor) =>
  db.selectFrom('plans').select(PLAN_COLUMNS).orderBy('price_cents').orderBy('id').execute();

export const findPlan = (db: Executor, id: number) =>
  db.selectFrom('plans').select(PLAN_COLUMNS).where('id', '=', id).executeTakeFirst();

export const findPlanByName = (db: Executor, planName: string) =>
  db.selectFrom('plans').select(PLAN_COLUMNS).where('plan_name', '=', planName).executeTakeFirst();

export const findPlanOfUser = (db: Executor, userId: number) =>
  db
    .selectFrom('plans')
    .innerJoin('users', 'users.plan_id', 'plans.id')
    .select(PLAN_COLUMNS.map((column) => `plans.${column}` as const))
    .where('users.id', '=', userId)
    .executeTakeFirstOrThrow();

export const insertPlan = (db: Executor, plan: Insertable<PlansTable>) =>
  db.insertInto('plans').values(plan).returning(PLAN_COLUMNS).executeTakeFirstOrThrow();

export const updatePlan = (db: Executor, id: number, changes: Updateable<PlansTable>) =>
  db
    .updateTable('plans')
    .set({ ...changes, updated_at: new Date() })
    .where('id', '=', id)
    .returning(PLAN_COLUMNS)
    .executeTakeFirst();

export const setUserPlan = (db: Executor, userId: number, planId: number) =>
  db.updateTable('users').set({ plan_id: planId, updated_at: new Date() }).where('id', '=', userId).executeTakeFirst();

/** Every plan with how many users are on it (the operator area's plan table). */
export const listPlansWithUsers = (db: Executor) =>
  db
    .selectFrom('plans')
    .select(PLAN_COLUMNS.map((column) => `plans.${column}` as const))
    .select((eb) =>
      eb
        .selectFrom('users')
        .select(eb.fn.countAll<string>().as('count'))
        .whereRef('users.plan_id', '=', 'plans.id')
        .as('users'),
    )
    .orderBy('plans.price_cents')
    .orderBy('plans.id')
    .execute();
