import { createHmac } from 'node:crypto';
import { sql } from 'kysely';
import { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import type { Executor } from '../../platform/db';
import { safeEqual } from '../../platform/tokens';
import { openSecret } from '../accounts/secrets';

/** The custom variable each Mailgun message carries, naming its recipient row. */
export const RECIPIENT_VARIABLE = 'sendwell-recipient';
/** Signatures older (or newer) than this are refused, as Mailgun advises. */
const MAX_AGE_SECONDS = 300;

/** Mailgun's webhook body (https://documentation.mailgun.com, "Securing webhooks", "Events"). */
export const ZMailgunWebhook = z.object({
  signature: z.object({
    timestamp: z.string().max(20),
    token: z.string().min(10).max(100),
    signature: z.string().max(128),
  }),
  'event-data': z
    .object({
      id: z.string().max(200),
      event: z.string().max(40),
      severity: z.string().max(40).optional(),
      recipient: z.string().max(320).optional(),
      'user-variables': z.record(z.string(), z.unknown()).optional(),
      'delivery-status': z
        .object({
          code: z.number().optional(),
          message: z.string().optional(),
          description: z.string().optional(),
        })
        .passthrough()
        .optional(),
    })
    .passthrough(),
});
export type TMailgunWebhook = z.infer<typeof ZMailgunWebhook>;

export type TWebhookAnswer = { status: 200 | 401 | 404; message: string };

/**
 * Checks a webhook the way Mailgun documents it: HMAC-SHA256 of timestamp + token with the
 * account's webhook signing key, compared in constant time; a stale timestamp and a token
 * seen before are refused (R9). Then applies the event once, whatever order or however
 * often it arrives (R10).
 */
export const receiveMailgunWebhook = async (
  platform: TPlatform,
  accountId: number,
  body: TMailgunWebhook,
): Promise<TWebhookAnswer> => {
  const account = await platform.db
    .selectFrom('sending_accounts')
    .select(['id', 'user_id', 'webhook_key_encrypted'])
    .where('id', '=', accountId)
    .where('provider', '=', 'mailgun')
    .executeTakeFirst();
  const key = account ? openSecret(platform, account.id, 'webhook_key', account.webhook_key_encrypted) : null;
  if (!account || !key) return { status: 404, message: 'No Mailgun account here takes webhooks.' };
  const { timestamp, token, signature } = body.signature;
  const expected = createHmac('sha256', key).update(`${timestamp}${token}`).digest('hex');
  if (!safeEqual(signature, expected)) return { status: 401, message: 'The signature does not match.' };
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > MAX_AGE_SECONDS || !Number.isFinite(Number(timestamp))) {
    return { status: 401, message: 'The signature is too old.' };
  }
  return platform.db.transaction().execute(async (trx) => {
    const fresh = await trx
      .insertInto('webhook_tokens')
      .values({ token })
      .onConflict((conflict) => conflict.column('token').doNothing())
      .returning('token')
      .executeTakeFirst();
    if (!fresh) return { status: 401 as const, message: 'This request was seen before.' };
    const event = body['event-data'];
    const first = await trx
      .insertInto('provider_events')
      .values({ id: `mailgun:${event.id}`, account_id: account.id })
      .onConflict((conflict) => conflict.column('id').doNothing())
      .returning('id')
      .executeTakeFirst();
    if (first) await applyEvent(trx, account, event);
    return { status: 200 as const, message: 'ok' };
  });
};

type TEvent = TMailgunWebhook['event-data'];

/** Sets a recipient's first-time column and counts the send once for it. */
const firstTime = async (trx: Executor, recipientId: number, sendId: number, column: string, counter: string) => {
  const updated = await sql`
    update send_recipients set ${sql.ref(column)} = now(), updated_at = now()
     where id = ${recipientId} and ${sql.ref(column)} is null`.execute(trx);
  if ((updated.numAffectedRows ?? 0n) > 0n) {
    await sql`update sends set ${sql.ref(counter)} = ${sql.ref(counter)} + 1 where id = ${sendId}`.execute(trx);
  }
};

const suppress = (trx: Executor, userId: number, email: string, type: 'bounce' | 'complained', event: TEvent) =>
  sql`
    insert into suppressions (user_id, email, type, reason, message, description)
    values (${userId}, ${email}, ${type}, ${event.event}, ${event['delivery-status']?.message ?? null},
            ${event['delivery-status']?.description ?? null})
    on conflict (user_id, lower(email), type) do update set quantity = suppressions.quantity + 1, updated_at = now()`.execute(
    trx,
  );

const unsubscribeEverywhere = (trx: Executor, userId: number, accountId: number, email: string) =>
  trx
    .updateTable('list_members')
    .set({ subscribed: false, updated_at: new Date() })
    .where('user_id', '=', userId)
    .where('account_id', '=', accountId)
    .where(sql<string>`lower(email)`, '=', email.toLowerCase())
    .execute();

const applyEvent = async (trx: Executor, account: { id: number; user_id: number }, event: TEvent) => {
  const token = event['user-variables']?.[RECIPIENT_VARIABLE];
  const recipient =
    typeof token === 'string'
      ? await trx
          .selectFrom('send_recipients')
          .innerJoin('sends', 'sends.id', 'send_recipients.send_id')
          .select(['send_recipients.id', 'send_recipients.email', 'send_recipients.send_id'])
          .where('send_recipients.token', '=', token)
          .where('sends.account_id', '=', account.id)
          .executeTakeFirst()
      : undefined;
  const email = recipient?.email ?? event.recipient;
  switch (event.event) {
    case 'delivered':
      if (recipient) await firstTime(trx, recipient.id, recipient.send_id, 'delivered_at', 'delivered_count');
      return;
    case 'opened':
      if (recipient) await firstTime(trx, recipient.id, recipient.send_id, 'opened_at', 'opened_count');
      return;
    case 'clicked':
      if (recipient) await firstTime(trx, recipient.id, recipient.send_id, 'clicked_at', 'clicked_count');
      return;
    case 'failed': {
      // Temporary failures are Mailgun's to retry; a permanent one ends the address.
      if (event.severity !== 'permanent' || !email) return;
      await suppress(trx, account.user_id, email, 'bounce', event);
      if (recipient) {
        const failed =
          await sql`update send_recipients set status = 'failed', error = ${event['delivery-status']?.message ?? 'bounced'}
          where id = ${recipient.id} and status <> 'failed'`.execute(trx);
        if ((failed.numAffectedRows ?? 0n) > 0n) {
          await sql`update sends set failed_count = failed_count + 1 where id = ${recipient.send_id}`.execute(trx);
        }
      }
      return;
    }
    case 'complained':
      if (!email) return;
      await suppress(trx, account.user_id, email, 'complained', event);
      await unsubscribeEverywhere(trx, account.user_id, account.id, email);
      if (recipient) await firstTime(trx, recipient.id, recipient.send_id, 'complained_at', 'complained_count');
      return;
    case 'unsubscribed':
      if (!email) return;
      await unsubscribeEverywhere(trx, account.user_id, account.id, email);
      if (recipient) await firstTime(trx, recipient.id, recipient.send_id, 'unsubscribed_at', 'unsubscribed_count');
      return;
    default:
      return;
  }
};
