import { sql } from 'kysely';
import type { TPlatform } from '../../platform/context';
import { unsubscribeEverywhere } from '../suppression/suppression.service';
import { recordDeliveryEvents } from './delivery-events';

/** A recipient's unsubscribe token, as in the link and the List-Unsubscribe header. */
export const isToken = (token: string) => /^[0-9a-f]{32}$/.test(token);

export const findByToken = (platform: TPlatform, token: string) =>
  platform.db
    .selectFrom('send_recipients')
    .innerJoin('sends', 'sends.id', 'send_recipients.send_id')
    .select([
      'send_recipients.id',
      'send_recipients.email',
      'send_recipients.unsubscribed_at',
      'sends.id as send_id',
      'sends.user_id',
      'sends.account_id',
      'sends.from_name',
      'sends.from_address',
    ])
    .where('send_recipients.token', '=', token)
    .executeTakeFirst();

/**
 * Unsubscribes a recipient from every list of the account the email came from, and counts
 * it once on the send however often the link or the one-click POST arrives.
 */
export const unsubscribe = async (platform: TPlatform, token: string) => {
  const found = isToken(token) ? await findByToken(platform, token) : undefined;
  if (!found) return null;
  await platform.db.transaction().execute(async (trx) => {
    if (found.account_id !== null) {
      await unsubscribeEverywhere(trx, { userId: found.user_id, accountId: found.account_id, email: found.email });
    }
    const first = await trx
      .updateTable('send_recipients')
      .set({ unsubscribed_at: new Date(), updated_at: new Date() })
      .where('id', '=', found.id)
      .where('unsubscribed_at', 'is', null)
      .executeTakeFirst();
    if (first.numUpdatedRows > 0n) {
      await sql`update sends set unsubscribed_count = unsubscribed_count + 1 where id = ${found.send_id}`.execute(trx);
      await recordDeliveryEvents(trx, [
        {
          userId: found.user_id,
          accountId: found.account_id,
          sendId: found.send_id,
          recipientId: found.id,
          email: found.email,
          type: 'unsubscribed',
          source: 'recipient',
        },
      ]);
    }
  });
  return found;
};
