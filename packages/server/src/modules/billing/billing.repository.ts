import type { Updateable } from 'kysely';
import type { Executor } from '../../platform/db';
import type { UsersTable } from '../../platform/db-schema';

const BILLING_COLUMNS = [
  'users.id',
  'users.name',
  'users.email',
  'users.plan_id',
  'users.stripe_customer_id',
  'users.stripe_subscription_id',
  'users.subscription_status',
  'users.current_period_end',
] as const;

export const findBillingUser = (db: Executor, userId: number, { forUpdate = false } = {}) => {
  let query = db.selectFrom('users').select(BILLING_COLUMNS).where('users.id', '=', userId);
  if (forUpdate) query = query.forUpdate();
  return query.executeTakeFirstOrThrow();
};

export const findBillingUserByCustomer = (db: Executor, customerId: string) =>
  db
    .selectFrom('users')
    .select(BILLING_COLUMNS)
    .where('users.stripe_customer_id', '=', customerId)
    .forUpdate()
    .executeTakeFirst();

type TBillingChanges = Pick<
  Updateable<UsersTable>,
  'plan_id' | 'stripe_customer_id' | 'stripe_subscription_id' | 'subscription_status' | 'current_period_end'
>;

export const updateBilling = (db: Executor, userId: number, changes: TBillingChanges) =>
  db
    .updateTable('users')
    .set({ ...changes, updated_at: new Date() })
    .where('id', '=', userId)
    .executeTakeFirst();

/** True the first time an event id is seen; false for a replay. Rolls back with the caller's transaction. */
export const recordStripeEvent = async (db: Executor, event: { id: string; type: string }) =>
  (await db
    .insertInto('stripe_events')
    .values({ id: event.id, type: event.type })
    .onConflict((conflict) => conflict.column('id').doNothing())
    .returning('id')
    .executeTakeFirst()) !== undefined;
