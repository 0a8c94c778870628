import { SPENDING_CREDIT_TYPES, type TCreditType } from '@sendwell/contracts';
import { sql } from 'kysely';
import type { Executor } from '../../platform/db';
import { hasRows } from '../../platform/queries';

export const findBalance = async (db: Executor, userId: number, { forUpdate = false } = {}) => {
  let query = db.selectFrom('credit_balances').select(['balance', 'used']).where('user_id', '=', userId);
  if (forUpdate) query = query.forUpdate();
  return (await query.executeTakeFirst()) ?? { balance: 0, used: 0 };
};

/**
 * Moves the balance by `quantity` in one statement, serialised on the user's row.
 * A negative change that would take the balance below zero matches no row and returns
 * undefined: that is the whole overdraft check, safe under any concurrency.
 */
export const moveBalance = async (db: Executor, userId: number, type: TCreditType, quantity: number) => {
  const usedDelta = SPENDING_CREDIT_TYPES.includes(type) ? -quantity : 0;
  if (quantity < 0) {
    return db
      .updateTable('credit_balances')
      .set({
        balance: sql`balance + ${quantity}`,
        used: sql`used + ${usedDelta}`,
        updated_at: new Date(),
      })
      .where('user_id', '=', userId)
      .where(sql<boolean>`balance + ${quantity} >= 0`)
      .returning(['balance', 'used'])
      .executeTakeFirst();
  }
  return db
    .insertInto('credit_balances')
    .values({ user_id: userId, balance: quantity, used: Math.max(0, usedDelta) })
    .onConflict((conflict) =>
      conflict.column('user_id').doUpdateSet({
        balance: sql`credit_balances.balance + ${quantity}`,
        used: sql`greatest(0, credit_balances.used + ${usedDelta})`,
        updated_at: new Date(),
      }),
    )
    .returning(['balance', 'used'])
    .executeTakeFirstOrThrow();
};

export const insertEntry = (
  db: Executor,
  entry: { userId: number; type: TCreditType; quantity: number; reference: string | null },
) =>
  db
    .insertInto('credit_entries')
    .values({ user_id: entry.userId, type: entry.type, quantity: entry.quantity, reference: entry.reference })
    .returning('id')
    .executeTakeFirstOrThrow();

export const selectEntries = (db: Executor, userId: number) =>
  db
    .selectFrom('credit_entries')
    .select(['id', 'type', 'quantity', 'reference', 'created_at'])
    .where('user_id', '=', userId);

/** Whether credits of this type were already moved for this reference (a Stripe invoice, payment or subscription). */
export const hasCreditEntry = (db: Executor, type: string, reference: string) =>
  hasRows(db.selectFrom('credit_entries').where('type', '=', type).where('reference', '=', reference));
