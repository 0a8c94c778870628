import { sql } from 'kysely';
import type { Executor } from '../../platform/db';
import type { TPersonalData } from '../module';

/**
 * A person's data on request (issue 48 §4, R46): the webhook deliveries about one address
 * (its member and message events: their ordering key is the address, lower case) with the
 * receivers' answers to them. Erasing deletes them, delivered or still waiting: an erased
 * address is not sent on to the user's systems afterwards. A send's events name no address.
 */
const deliveriesAbout = (db: Executor, userId: number, email: string) =>
  db
    .selectFrom('webhook_deliveries')
    .select(['id', 'endpoint_id', 'event_id', 'type', 'status', 'payload', 'created_at', 'delivered_at'])
    .where('user_id', '=', userId)
    .where('ordering_key', '=', email.toLowerCase())
    .orderBy('id')
    .execute();

export const webhooksPersonalData: TPersonalData = {
  find: async (db, userId, email) => {
    const deliveries = await deliveriesAbout(db, userId, email);
    const attempts =
      deliveries.length === 0
        ? []
        : await db
            .selectFrom('webhook_attempts')
            .select(['delivery_id', 'status_code', 'response', 'created_at'])
            .where(
              'delivery_id',
              'in',
              deliveries.map((delivery) => delivery.id),
            )
            .orderBy('id')
            .execute();
    return { webhook_deliveries: deliveries, webhook_attempts: attempts };
  },
  erase: async (_platform, trx, userId, email) => {
    const deleted = await sql<{ id: number }>`
      delete from webhook_deliveries where user_id = ${userId} and ordering_key = ${email.toLowerCase()}
      returning id`.execute(trx);
    return { webhook_deliveries: deleted.rows.length };
  },
};
