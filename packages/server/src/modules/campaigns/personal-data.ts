import type { ExpressionBuilder } from 'kysely';
import type { Executor } from '../../platform/db';
import type { Database } from '../../platform/db-schema';
import { deleteRows, isAddress } from '../../platform/queries';
import type { TPersonalData } from '../module';

/**
 * Campaigns' part of a person's data (issue 48 §4): the address as a recipient of the
 * user's campaigns, the campaign messages it was sent (their words were its own, merge
 * fields filled in), and the rows of a draft's files that gave it. Found through the user's campaigns, one probe of the
 * (campaign_id, lower(email)) index each; the messages go with their recipient (on delete
 * cascade).
 */
const recipientsOf = (db: Executor, userId: number, email: string) =>
  db
    .selectFrom('campaign_recipients')
    .selectAll()
    .where('campaign_id', 'in', (eb) => eb.selectFrom('campaigns').select('id').where('user_id', '=', userId))
    .where(isAddress(email))
    .orderBy('id')
    .execute();

/**
 * The rows of a draft's files and manual table that give the address (kept until the
 * campaign is saved), through the user's sources: one probe of each source's rows. What
 * the export reads is what the erase deletes.
 */
const isSourceRowAbout = (userId: number, email: string) => (eb: ExpressionBuilder<Database, 'campaign_source_rows'>) =>
  eb.and([
    eb('source_id', 'in', eb.selectFrom('campaign_sources').select('id').where('user_id', '=', userId)),
    isAddress(email),
  ]);

const sourceRowsOf = (db: Executor, userId: number, email: string) =>
  db
    .selectFrom('campaign_source_rows')
    .selectAll()
    .where(isSourceRowAbout(userId, email))
    .orderBy('source_id')
    .orderBy('position')
    .execute();

const messagesOf = (db: Executor, recipientIds: number[]) =>
  recipientIds.length === 0
    ? Promise.resolve([])
    : db.selectFrom('campaign_messages').selectAll().where('recipient_id', 'in', recipientIds).orderBy('id').execute();

export const campaignsPersonalData: TPersonalData = {
  find: async (db, userId, email) => {
    const recipients = await recipientsOf(db, userId, email);
    return {
      campaign_recipients: recipients,
      campaign_messages: await messagesOf(
        db,
        recipients.map((recipient) => recipient.id),
      ),
      campaign_source_rows: await sourceRowsOf(db, userId, email),
    };
  },
  erase: async (_platform, trx, userId, email) => {
    const recipients = await recipientsOf(trx, userId, email);
    // Their messages go with them (on delete cascade); counted first.
    const messages = await messagesOf(
      trx,
      recipients.map((recipient) => recipient.id),
    );
    // A draft's recipients are made again from its sources: the rows that gave the address go too.
    const sourceRows = await trx
      .deleteFrom('campaign_source_rows')
      .where(isSourceRowAbout(userId, email))
      .executeTakeFirst();
    return {
      campaign_recipients: await deleteRows(trx, 'campaign_recipients', recipients),
      campaign_messages: messages.length,
      campaign_source_rows: Number(sourceRows.numDeletedRows),
    };
  },
};
