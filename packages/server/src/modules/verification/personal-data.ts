import type { Executor } from '../../platform/db';
import { deleteRows, isAddress } from '../../platform/queries';
import type { TPersonalData } from '../module';

/**
 * Verification's part of a person's data (issue 48 §4): the address checked in the user's
 * verification jobs, and the user's remembered verdict for it. Items are found through the
 * user's jobs, one probe of the (job_id, lower(email)) index each.
 */
const itemsOf = (db: Executor, userId: number, email: string) =>
  db
    .selectFrom('verification_items')
    .selectAll()
    .where('job_id', 'in', (eb) => eb.selectFrom('verification_jobs').select('id').where('user_id', '=', userId))
    .where(isAddress(email))
    .orderBy('id')
    .execute();

const verdictsOf = (db: Executor, userId: number, email: string) =>
  db.selectFrom('verified_addresses').selectAll().where('user_id', '=', userId).where(isAddress(email)).execute();

export const verificationPersonalData: TPersonalData = {
  find: async (db, userId, email) => ({
    verification_items: await itemsOf(db, userId, email),
    verified_addresses: await verdictsOf(db, userId, email),
  }),
  erase: async (_platform, trx, userId, email) => {
    const items = await deleteRows(trx, 'verification_items', await itemsOf(trx, userId, email));
    const verdicts = await trx
      .deleteFrom('verified_addresses')
      .where('user_id', '=', userId)
      .where(isAddress(email))
      .executeTakeFirst();
    return { verification_items: items, verified_addresses: Number(verdicts.numDeletedRows) };
  },
};
