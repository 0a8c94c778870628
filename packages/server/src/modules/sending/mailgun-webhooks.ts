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
  const state = stateOf(platform);
  const key = await webhookKeyOf(platform, state, accountId);
  if (!key) return { status: 404, message: 'No Mailgun account here takes webhooks.' };
  const { timestamp, token, signature } = body.signature;
  const expected = createHmac('sha256', key).update(`${timestamp}${token}`).digest('hex');
  if (!safeEqual(signature, expected)) return { status: 401, message: 'The signature does not match.' };
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > MAX_AGE_SECONDS || !Number.isFinite(Number(timestamp))) {
    return { status: 401, message: 'The signature is too old.' };
  }
  const event = body['event-data'];
  const isFresh = await new Promise<boolean>((resolve, reject) => {
    state.waiting.push({
      accountId,
      token,
      eventId: `mailgun:${event.id}`,
      payload: JSON.stringify(event),
      resolve,
      reject,
    });
    void storeWaiting(platform, state);
  });
  if (!isFresh) return { status: 401, message: 'This request was seen before.' };
  return { status: 200, message: 'ok' };
};

type TIncoming = {
  accountId: number;
  token: string;
  eventId: string;
  payload: string;
  resolve: (isFresh: boolean) => void;
  reject: (error: unknown) => void;
};

/** What one process keeps per platform (tests and benches open several in one process). */
type TWebhookState = {
  keys: Map<number, { key: string | null; until: number }>;
  /** Verified events waiting for the next store statement. */
  waiting: TIncoming[];
  isStoring: boolean;
};

const states = new WeakMap<TPlatform, TWebhookState>();
const stateOf = (platform: TPlatform) => {
  let state = states.get(platform);
  if (!state) {
    state = { keys: new Map(), waiting: [], isStoring: false };
    states.set(platform, state);
  }
  return state;
};

/** Events stored per statement. */
const STORE_BATCH = 500;

/**
 * Stores the verified events that arrived while the previous statement ran, in one
 * statement and one commit: the token is recorded (a token already there refuses its
 * request, R9) and, only for a new token, the event is stored unless its id already is
 * (R10). Each request is answered after the commit that holds its event, so an accepted
 * event survives a crash exactly as with one statement per request; under load the
 * round trips and commits are shared (Mailgun posts thousands of events a second). An
 * idle process stores a lone event at once, without waiting for company.
 */
const storeWaiting = async (platform: TPlatform, state: TWebhookState) => {
  if (state.isStoring) return;
  state.isStoring = true;
  try {
    while (state.waiting.length > 0) {
      // A token twice in one statement would be "new" for both requests: the second
      // waits for the next statement, where the first one's row refuses it.
      const batch: TIncoming[] = [];
      const later: TIncoming[] = [];
      const tokens = new Set<string>();
      for (const incoming of state.waiting) {
        if (batch.length < STORE_BATCH && !tokens.has(incoming.token)) {
          tokens.add(incoming.token);
          batch.push(incoming);
        } else {
          later.push(incoming);
        }
      }
      state.waiting = later;
      // Rows are locked in token order, then event-id order, so two processes storing
      // overlapping batches wait for each other instead of deadlocking.
      batch.sort((left, right) => (left.token < right.token ? -1 : 1));
      try {
        const stored = await sql<{ token: string }>`
          with incoming as (
            select * from unnest(${batch.map((incoming) => incoming.token)}::text[],
                                 ${batch.map((incoming) => incoming.accountId)}::bigint[],
                                 ${batch.map((incoming) => incoming.eventId)}::text[],
                                 ${batch.map((incoming) => incoming.payload)}::text[])
              as incoming (token, account_id, event_id, payload)
          ), token as (
            insert into webhook_tokens (token) select token from incoming order by token
            on conflict do nothing returning token
          ), event as (
            insert into provider_events (id, account_id, payload)
            select incoming.event_id, incoming.account_id, incoming.payload::jsonb from incoming join token using (token)
             order by incoming.event_id
            on conflict (id) do nothing
          )
          select token from token`.execute(platform.db);
        const fresh = new Set(stored.rows.map((row) => row.token));
        for (const incoming of batch) incoming.resolve(fresh.has(incoming.token));
        // The events are committed: a queue that fails here delays them until the
        // sending tick applies them, it does not lose them.
        if (fresh.size > 0) await scheduleApply(platform).catch((error) => platform.log.error(error));
      } catch (error) {
        for (const incoming of batch) incoming.reject(error);
      }
    }
  } finally {
    state.isStoring = false;
  }
};

/**
 * Webhook signing keys by account, for a minute: Mailgun posts thousands of events a
 * second for one account, and a changed key is picked up within the minute.
 */
const KEY_CACHE_MS = 60_000;

const webhookKeyOf = async (platform: TPlatform, state: TWebhookState, accountId: number) => {
  const cached = state.keys.get(accountId);
  if (cached && cached.until > Date.now()) return cached.key;
  const account = await platform.db
    .selectFrom('sending_accounts')
    .select(['id', 'webhook_key_encrypted'])
    .where('id', '=', accountId)
    .where('provider', '=', 'mailgun')
    .executeTakeFirst();
  const key = account ? openSecret(platform, account.id, 'webhook_key', account.webhook_key_encrypted) : null;
  if (state.keys.size > 10_000) state.keys.clear();
  state.keys.set(accountId, { key, until: Date.now() + KEY_CACHE_MS });
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

/** The recipient column an event kind sets the first time, and the send counter it moves then. */
const FIRST_TIME = {
  delivered: { column: 'delivered_at', counter: 'delivered_count' },
  opened: { column: 'opened_at', counter: 'opened_count' },
  clicked: { column: 'clicked_at', counter: 'clicked_count' },
  complained: { column: 'complained_at', counter: 'complained_count' },
  unsubscribed: { column: 'unsubscribed_at', counter: 'unsubscribed_count' },
} as const;
type TFirstTimeKind = keyof typeof FIRST_TIME;
const isFirstTimeKind = (kind: string): kind is TFirstTimeKind => Object.hasOwn(FIRST_TIME, kind);

type TEvent = TMailgunWebhook['event-data'];
type TRecipient = { id: number; email: string; send_id: number };
type TCounters = Map<number, Map<string, number>>;

/**
 * Applies stored events in batches: each event once (its row is marked applied in the same
 * transaction), the recipients' first-time columns set, and each send's counters moved once
 * per batch rather than once per event. Recipients are found and first-time columns set
 * with one statement per batch and column, not per event: delivered, opened and clicked
 * are nearly all of Mailgun's traffic. Suppressions and unsubscribes (rare) go event by
 * event, in arrival order.
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
      const events = pending.map((row) => row.payload as TEvent);
      const recipients = await findRecipients(
        trx,
        events,
        pending.map((row) => row.account_id),
      );
      const counters: TCounters = new Map();
      const firstTimes = new Map<TFirstTimeKind, number[]>();
      for (const [index, event] of events.entries()) {
        const recipient = recipients[index];
        if (!recipient || !isFirstTimeKind(event.event)) continue;
        const recipientIds = firstTimes.get(event.event) ?? [];
        recipientIds.push(recipient.id);
        firstTimes.set(event.event, recipientIds);
      }
      for (const [kind, recipientIds] of firstTimes) {
        await setFirstTime(trx, counters, FIRST_TIME[kind], recipientIds);
      }
      for (const [index, row] of pending.entries()) {
        await applySideEffects(
          trx,
          { id: row.account_id, user_id: row.user_id },
          events[index]!,
          recipients[index],
          counters,
        );
      }
      // In id order, like every batch, so concurrent runs queue on a send rather than deadlock.
      for (const [sendId, byCounter] of [...counters].sort(([left], [right]) => left - right)) {
        const sets = [...byCounter].map(
          ([counter, increment]) => sql`${sql.ref(counter)} = ${sql.ref(counter)} + ${increment}`,
        );
        await sql`update sends set ${sql.join(sets)}, updated_at = now() where id = ${sendId}`.execute(trx);
      }
      await sql`update provider_events set applied_at = now()
                 where id = any(${pending.map((row) => row.id)}::text[])`.execute(trx);
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

/**
 * Each event's recipient row, by the variable the message carried, in one query; only a
 * send of the account the event came through counts (a token is not an authority across
 * accounts).
 */
const findRecipients = async (
  trx: Executor,
  events: TEvent[],
  accountIds: number[],
): Promise<(TRecipient | undefined)[]> => {
  const tokens = events.map((event) => {
    const token = event['user-variables']?.[RECIPIENT_VARIABLE];
    return typeof token === 'string' ? token : null;
  });
  const found = await sql<TRecipient & { position: number }>`
    select event.position, send_recipients.id, send_recipients.email, send_recipients.send_id
      from unnest(${tokens}::text[], ${accountIds}::bigint[]) with ordinality as event (token, account_id, position)
      join send_recipients on send_recipients.token = event.token
      join sends on sends.id = send_recipients.send_id and sends.account_id = event.account_id`.execute(trx);
  const byPosition: (TRecipient | undefined)[] = new Array(events.length);
  for (const { position, ...recipient } of found.rows) byPosition[Number(position) - 1] = recipient;
  return byPosition;
};

const count = (counters: TCounters, sendId: number, counter: string, increment = 1) => {
  const bySend = counters.get(sendId) ?? new Map<string, number>();
  bySend.set(counter, (bySend.get(counter) ?? 0) + increment);
  counters.set(sendId, bySend);
};

/**
 * Sets a first-time column on the recipients that do not have it yet and counts each send
 * once per recipient it set: a repeated event, or two in one batch, moves nothing twice.
 */
const setFirstTime = async (
  trx: Executor,
  counters: TCounters,
  { column, counter }: (typeof FIRST_TIME)[TFirstTimeKind],
  recipientIds: number[],
) => {
  const updated = await sql<{ send_id: number }>`
    update send_recipients set ${sql.ref(column)} = now(), updated_at = now()
     where id = any(${recipientIds}::bigint[]) and ${sql.ref(column)} is null
    returning send_id`.execute(trx);
  for (const { send_id } of updated.rows) count(counters, send_id, counter);
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

/** What an event does beyond its first-time column: suppressions, failures, unsubscribes. */
const applySideEffects = async (
  trx: Executor,
  account: { id: number; user_id: number },
  event: TEvent,
  recipient: TRecipient | undefined,
  counters: TCounters,
) => {
  const email = recipient?.email ?? event.recipient;
  switch (event.event) {
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
      return;
    case 'unsubscribed':
      if (!email) return;
      await unsubscribeEverywhere(trx, account.user_id, account.id, email);
      return;
    default:
      return;
  }
};
