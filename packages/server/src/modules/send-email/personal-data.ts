import { sql } from 'kysely';
import type { Executor } from '../../platform/db';
import type { TPersonalData } from '../module';

/**
 * Send Email's part of a person's data (issue 48 §4): a send waiting for its lists'
 * verification keeps its form, whose copies and reply-to may name the address. Erasing
 * deletes such a row: a waiting send is given up (nothing is sent), a finished one forgotten.
 */
const rowsNaming = (db: Executor, userId: number, email: string) =>
  db
    .selectFrom('sends_after_verification')
    .selectAll()
    .where('user_id', '=', userId)
    .where(sql<boolean>`strpos(lower(form::text), ${email.toLowerCase()}) > 0`)
    .orderBy('id')
    .execute();

export const sendsAfterVerificationPersonalData: TPersonalData = {
  find: async (db, userId, email) => ({ sends_after_verification: await rowsNaming(db, userId, email) }),
  erase: async (_platform, trx, userId, email) => {
    const rows = await rowsNaming(trx, userId, email);
    if (rows.length > 0) {
      await trx
        .deleteFrom('sends_after_verification')
        .where(
          'id',
          'in',
          rows.map((row) => row.id),
        )
        .execute();
    }
    return { sends_after_verification: rows.length };
  },
};
