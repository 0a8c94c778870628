import { sql } from 'kysely';
import type { Executor } from '../../platform/db';
import { accountRowsOfUser } from '../accounts/accounts.service';
import type { TPersonalData } from '../module';

/**
 * The intake's part of a person's data (issue 48 §4): the provider events (Mailgun's
 * webhooks, kept until applied and a while after, R30) of the user's accounts whose payload
 * names the address. An event not applied yet goes too: applied after the erase, it would
 * write the address back.
 */
const eventsNaming = async (db: Executor, userId: number, email: string) => {
  const accountIds = (await accountRowsOfUser(db, userId)).map((account) => account.id);
  if (accountIds.length === 0) return [];
  return db
    .selectFrom('provider_events')
    .selectAll()
    .where('account_id', 'in', accountIds)
    .where(sql<number>`strpos(lower(payload::text), ${email.toLowerCase()})`, '>', 0)
    .orderBy('created_at')
    .execute();
};

export const deliveryEventsPersonalData: TPersonalData = {
  find: async (db, userId, email) => ({ provider_events: await eventsNaming(db, userId, email) }),
  erase: async (_platform, trx, userId, email) => {
    // Not deleteRows: a provider's event id is its own string, not a number of ours.
    const ids = (await eventsNaming(trx, userId, email)).map((event) => event.id);
    if (ids.length > 0) await trx.deleteFrom('provider_events').where('id', 'in', ids).execute();
    return { provider_events: ids.length };
  },
};
