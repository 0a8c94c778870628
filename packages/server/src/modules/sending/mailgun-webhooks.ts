import { createHmac } from 'node:crypto';
import { sql } from 'kysely';
import { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import type { Executor } from '../../platform/db';
import { defineJob } from '../../platform/queue';
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
 * seen before are refused (R9). The event is stored once by its id and applied in a batch
 * soon after (`applyPendingEvents`), whatever order or however often it arrives (R10).
 */
export const receiveMailgunWebhook = async (
  platform: TPlatform,
  accountId: number,
  body: TMailgunWebhook,
): Promise<TWebhookAnswer> => {
  const key = await webhookKeyOf(platform, accountId);
  if (!key) return { status: 404, message: 'No Mailgun account here takes webhooks.' };
  const { timestamp, token, signature } = body.signature;
  const expected = createHmac('sha256', key).update(`${timestamp}${token}`).digest('hex');
  if (!safeEqual(signature, expected)) return { status: 401, message: 'The signature does not match.' };
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > MAX_AGE_SECONDS || !Number.isFinite(Number(timestamp))) {
    return { status: 401, message: 'The signature is too old.' };
  }
  const event = body['event-data'];
  const stored = await sql<{ fresh: boolean }>`
    with token as (
      insert into webhook_tokens (token) values (${token}) on conflict do nothing returning token
    ), event as (
      insert into provider_events (id, account_id, payload)
      select ${`mailgun:${event.id}`}, ${accountId}, ${JSON.stringify(event)}::jsonb from token
      on conflict (id) do nothing
    )
    select exists (select 1 from token) as fresh`.execute(platform.db);
  if (!stored.rows[0]?.fresh) return { status: 401, message: 'This request was seen before.' };
  await scheduleApply(platform);
  return { status: 200, message: 'ok' };
};

/**
 * Webhook signing keys by account, for a minute: Mailgun posts thousands of events a
 * second for one account, and a changed key is picked up within the minute.
 */
const keyCache = new Map<number, { key: string | null; until: number }>();
const KEY_CACHE_MS = 60_000;

const webhookKeyOf = async (platform: TPlatform, accountId: number) => {
  const cached = keyCache.get(accountId);
  if (cached && cached.until > Date.now()) return cached.key;
  const account = await platform.db
    .selectFrom('sending_accounts')
    .select(['id', 'webhook_key_encrypted'])
    .where('id', '=', accountId)
    .where('provider', '=', 'mailgun')
    .executeTakeFirst();
  const key = account ? openSecret(platform, account.id, 'webhook_key', account.webhook_key_encrypted) : null;
  if (keyCache.size > 10_000) keyCache.clear();
  keyCache.set(accountId, { key, until: Date.now() + KEY_CACHE_MS });
  return key;
};

/**
 * Queues the apply run at most twice a second per process (it takes every event stored
 * until it runs); the minute's tick catches anything a crash left behind.
 */
let lastScheduled = 0;
const scheduleApply = async (platform: TPlatform) => {
  if (Date.now() - lastScheduled < 500) return;
  lastScheduled = Date.now();
  await platform.queue.enqueue(
    applyEventsJob,
    {},
    { singletonKey: 'apply-events', startAfter: new Date(Date.now() + 500) },
  );
};

/** Events applied per transaction. */
const APPLY_BATCH = 1000;

/**
 * Applies stored events in batches: each event once (its row is marked applied in the same
 * transaction), the recipients' first-time columns set, and each send's counters moved once
 * per batch rather than once per event.
 */
export const applyPendingEvents = async (platform: TPlatform) => {
  let applied = 0;
  for (;;) {
    const count = await platform.db.transaction().execute(async (trx) => {
      const pending = await trx
        .selectFrom('provider_events')
        .innerJoin('sending_accounts', 'sending_accounts.id', 'provider_events.account_id')
        .select([
          'provider_events.id',
          'provider_events.payload',
          'sending_accounts.id as account_id',
          'sending_accounts.user_id',
        ])
        .where('provider_events.applied_at', 'is', null)
        .orderBy('provider_events.created_at')
        .limit(APPLY_BATCH)
        .forUpdate('provider_events')
        .skipLocked()
        .execute();
      if (pending.length === 0) return 0;
      const counters = new Map<number, Map<string, number>>();
      for (const row of pending) {
        await applyEvent(trx, { id: row.account_id, user_id: row.user_id }, row.payload as TEvent, counters);
      }
      for (const [sendId, byCounter] of counters) {
        const sets = [...byCounter].map(
          ([counter, increment]) => sql`${sql.ref(counter)} = ${sql.ref(counter)} + ${increment}`,
        );
        await sql`update sends set ${sql.join(sets)}, updated_at = now() where id = ${sendId}`.execute(trx);
      }
      await trx
        .updateTable('provider_events')
        .set({ applied_at: new Date() })
        .where(
          'id',
          'in',
          pending.map((row) => row.id),
        )
        .execute();
      return pending.length;
    });
    applied += count;
    if (count < APPLY_BATCH) return applied;
  }
};

export const applyEventsJob = defineJob({
  name: 'sending.apply-events',
  schema: z.object({}).passthrough(),
  concurrency: 1,
  handler: async (_data, platform) => {
    await applyPendingEvents(platform);
  },
});

type TEvent = TMailgunWebhook['event-data'];

type TCounters = Map<number, Map<string, number>>;

const count = (counters: TCounters, sendId: number, counter: string) => {
  const bySend = counters.get(sendId) ?? new Map<string, number>();
  bySend.set(counter, (bySend.get(counter) ?? 0) + 1);
  counters.set(sendId, bySend);
};

/** Sets a recipient's first-time column and counts the send once for it. */
const firstTime = async (
  trx: Executor,
  counters: TCounters,
  recipientId: number,
  sendId: number,
  column: string,
  counter: string,
) => {
  const updated = await sql`
    update send_recipients set ${sql.ref(column)} = now(), updated_at = now()
     where id = ${recipientId} and ${sql.ref(column)} is null`.execute(trx);
  if ((updated.numAffectedRows ?? 0n) > 0n) count(counters, sendId, counter);
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

const applyEvent = async (
  trx: Executor,
  account: { id: number; user_id: number },
  event: TEvent,
  counters: TCounters,
) => {
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
      if (recipient) await firstTime(trx, counters, recipient.id, recipient.send_id, 'delivered_at', 'delivered_count');
      return;
    case 'opened':
      if (recipient) await firstTime(trx, counters, recipient.id, recipient.send_id, 'opened_at', 'opened_count');
      return;
    case 'clicked':
      if (recipient) await firstTime(trx, counters, recipient.id, recipient.send_id, 'clicked_at', 'clicked_count');
      return;
    case 'failed': {
      // Temporary failures are Mailgun's to retry; a permanent one ends the address.
      if (event.severity !== 'permanent' || !email) return;
      await suppress(trx, account.user_id, email, 'bounce', event);
      if (recipient) {
        const failed =
          await sql`update send_recipients set status = 'failed', error = ${event['delivery-status']?.message ?? 'bounced'}
          where id = ${recipient.id} and status <> 'failed'`.execute(trx);
        if ((failed.numAffectedRows ?? 0n) > 0n) count(counters, recipient.send_id, 'failed_count');
      }
      return;
    }
    case 'complained':
      if (!email) return;
      await suppress(trx, account.user_id, email, 'complained', event);
      await unsubscribeEverywhere(trx, account.user_id, account.id, email);
      if (recipient)
        await firstTime(trx, counters, recipient.id, recipient.send_id, 'complained_at', 'complained_count');
      return;
    case 'unsubscribed':
      if (!email) return;
      await unsubscribeEverywhere(trx, account.user_id, account.id, email);
      if (recipient)
        await firstTime(trx, counters, recipient.id, recipient.send_id, 'unsubscribed_at', 'unsubscribed_count');
      return;
    default:
      return;
  }
};
