import { sql } from 'kysely';
import type { Executor } from '../../platform/db';
import { deleteRows } from '../../platform/queries';
import type { TPersonalData } from '../module';

/**
 * The test inbox's part of a person's data (issue 48 §4): the messages the user's test
 * inbox kept that were addressed to the address (its envelope recipients).
 */
const messagesTo = (db: Executor, userId: number, email: string) =>
  db
    .selectFrom('test_inbox_messages')
    .select(['id', 'mail_from', 'rcpt_to', 'subject', 'text_body', 'html_body', 'size_bytes', 'created_at'])
    .where('user_id', '=', userId)
    .where(sql<boolean>`exists (select 1 from unnest(rcpt_to) r where lower(r) = ${email.toLowerCase()})`)
    .orderBy('id')
    .execute();

export const testInboxPersonalData: TPersonalData = {
  find: async (db, userId, email) => ({ test_inbox_messages: await messagesTo(db, userId, email) }),
  erase: async (_platform, trx, userId, email) => ({
    test_inbox_messages: await deleteRows(trx, 'test_inbox_messages', await messagesTo(trx, userId, email)),
  }),
};
