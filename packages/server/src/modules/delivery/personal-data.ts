import { type ExpressionBuilder, sql } from 'kysely';
import type { Executor } from '../../platform/db';
import type { Database } from '../../platform/db-schema';
import { HttpError } from '../../platform/errors';
import { deleteRows, isAddress } from '../../platform/queries';
import type { TPersonalData } from '../module';

/**
 * The engine's part of a person's data (issue 48 §4): the messages the user sent the
 * address (`send_recipients`), what happened to them (`delivery_events`, and the events a
 * provider reported about the address without a message of ours), and the sends that named
 * it as a copy (CC or BCC). Recipients are found through the user's sends, one probe of
 * the (send_id, lower(email)) index each; their events through the send's index.
 */

/** What a recipient row holds for the person, without the secret its references derive from. */
const RECIPIENT_COLUMNS = [
  'id',
  'send_id',
  'email',
  'name',
  'fields',
  'headers',
  'status',
  'attempts',
  'error',
  'sent_at',
  'delivered_at',
  'opened_at',
  'clicked_at',
  'complained_at',
  'unsubscribed_at',
  'created_at',
] as const;

/** The messages the user sent the address, found through the user's sends. */
const recipientsQuery = (db: Executor, userId: number, email: string) =>
  db
    .selectFrom('send_recipients')
    .where('send_id', 'in', (eb) => eb.selectFrom('sends').select('id').where('user_id', '=', userId))
    .where(isAddress(email))
    .orderBy('id');

/** The events of those messages, and those a provider reported about the address without a message of ours. */
const eventsAbout =
  (userId: number, email: string, recipients: { id: number; send_id: number }[]) =>
  (eb: ExpressionBuilder<Database, 'delivery_events'>) =>
    eb.or([
      ...(recipients.length > 0
        ? [
            eb.and([
              eb(
                'send_id',
                'in',
                recipients.map((recipient) => recipient.send_id),
              ),
              eb(
                'recipient_id',
                'in',
                recipients.map((recipient) => recipient.id),
              ),
            ]),
          ]
        : []),
      eb.and([eb('user_id', '=', userId), eb('recipient_id', 'is', null), isAddress(email)]),
    ]);

/** The address in a CC or BCC line (a list of addresses with commas, semicolons or spaces between). */
const namesAddress = (line: string, email: string) =>
  line.split(/[\s,;]+/).some((item) => item.replace(/^<|>$/g, '').toLowerCase() === email.toLowerCase());

const withoutAddress = (line: string, email: string) =>
  line
    .split(/[\s,;]+/)
    .filter((item) => item !== '' && item.replace(/^<|>$/g, '').toLowerCase() !== email.toLowerCase())
    .join(', ');

const copiesNaming = async (db: Executor, userId: number, email: string) =>
  (
    await db
      .selectFrom('sends')
      .select(['id', 'subject', 'cc', 'bcc', 'created_at'])
      .where('user_id', '=', userId)
      .where((eb) =>
        eb.or([
          eb(sql<number>`strpos(lower(cc), ${email.toLowerCase()})`, '>', 0),
          eb(sql<number>`strpos(lower(bcc), ${email.toLowerCase()})`, '>', 0),
        ]),
      )
      .orderBy('id')
      .execute()
  ).filter((send) => namesAddress(send.cc, email) || namesAddress(send.bcc, email));

export const deliveryPersonalData: TPersonalData = {
  find: async (db, userId, email) => {
    const recipients = await recipientsQuery(db, userId, email).select(RECIPIENT_COLUMNS).execute();
    return {
      send_recipients: recipients,
      delivery_events: await db
        .selectFrom('delivery_events')
        .selectAll()
        .where(eventsAbout(userId, email, recipients))
        .orderBy('id')
        .execute(),
      sends: (await copiesNaming(db, userId, email)).map((send) => ({
        id: send.id,
        subject: send.subject,
        created_at: send.created_at,
        ...(namesAddress(send.cc, email) ? { cc: email } : {}),
        ...(namesAddress(send.bcc, email) ? { bcc: email } : {}),
      })),
    };
  },
  erase: async (_platform, trx, userId, email) => {
    const recipients = await recipientsQuery(trx, userId, email)
      .select(['id', 'send_id', 'status'])
      .forUpdate()
      .execute();
    // A message being handed over now is settled by its claim, which must find its row.
    if (recipients.some((recipient) => recipient.status === 'sending')) {
      throw new HttpError(
        409,
        'A message to this address is being handed over right now. Try again in a minute.',
        'RECIPIENT_SENDING',
      );
    }
    const events = await trx
      .deleteFrom('delivery_events')
      .where(eventsAbout(userId, email, recipients))
      .executeTakeFirst();
    // A message not sent yet is not sent at all: its send counts one recipient fewer. Those
    // that went stay in their send's figures (counts, nobody's address).
    const unsent = new Map<number, number>();
    for (const recipient of recipients) {
      if (recipient.status !== 'pending' && recipient.status !== 'deferred') continue;
      unsent.set(recipient.send_id, (unsent.get(recipient.send_id) ?? 0) + 1);
    }
    for (const [sendId, count] of unsent) {
      await trx
        .updateTable('sends')
        .set({ recipients_count: sql`greatest(recipients_count - ${count}, 0)`, updated_at: new Date() })
        .where('id', '=', sendId)
        .execute();
    }
    await deleteRows(trx, 'send_recipients', recipients);
    const copies = await copiesNaming(trx, userId, email);
    for (const send of copies) {
      await trx
        .updateTable('sends')
        .set({ cc: withoutAddress(send.cc, email), bcc: withoutAddress(send.bcc, email), updated_at: new Date() })
        .where('id', '=', send.id)
        .execute();
    }
    return {
      send_recipients: recipients.length,
      delivery_events: Number(events.numDeletedRows),
      sends: copies.length,
    };
  },
};
