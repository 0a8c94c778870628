import { createHmac, createSecretKey, KeyObject } from 'node:crypto';
import { sql } from 'kysely';
import { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import { isConnectionLost } from '../../platform/db';
import { groupCommit } from '../../platform/group-commit';
import { createMemoryRateLimiter } from '../../platform/rate-limit';
import { safeEqual } from '../../platform/tokens';
import { findWebhookKey } from '../accounts/accounts.service';
import { RECIPIENT_VARIABLE } from '../delivery/delivery.service';
import { applyEventsJob } from './delivery-events.jobs';
import { storeWebhookEvents, type TWebhookRecord } from './delivery-events.repository';

/**
 * How old a signature may be and still be taken. Mailgun resends a delivery it could not
 * make (any answer but 200 and 406) for up to 8 hours with the original signature block
 * (https://documentation.mailgun.com/docs/mailgun/user-manual/webhooks/webhook-retries),
 * so a freshness window of minutes loses every event of an outage longer than that (R31).
 * 12 hours: the 8 of the schedule plus room for Mailgun's own queueing. Replay protection
 * does not rest on this window but on the tokens (`webhook_tokens`).
 */
export const SIGNATURE_MAX_AGE_SECONDS = 12 * 3600;
/** Mailgun does not sign in the future; this is room for our clock being behind. */
const MAX_CLOCK_AHEAD_SECONDS = 300;
/**
 * Tokens are kept this long after they arrived: longer than their signature can pass the
 * check above (arrival ≥ signing − MAX_CLOCK_AHEAD_SECONDS), so no pruned token can ever be
 * taken again.
 */
export const TOKEN_RETENTION_HOURS = 24;
/** Provider text kept per field (an SMTP answer can run to kilobytes; R30). */
const PROVIDER_TEXT_LIMIT = 1000;

/** Mailgun's webhook body (https://documentation.mailgun.com, "Securing webhooks", "Events"). */
export const ZMailgunWebhook = z.object({
  signature: z.object({
    timestamp: z.string().max(20),
    token: z.string().min(10).max(100),
    signature: z.string().max(128),
  }),
  'event-data': z.object({
    id: z.string().max(200),
    event: z.string().max(40),
    // When it happened, in seconds (Mailgun sends a fraction): a retry hours later still
    // counts on the day it happened.
    timestamp: z.number().nullish(),
    severity: z.string().max(40).nullish(),
    recipient: z.string().max(320).optional(),
    // Only ever stored clipped (`storedEvent`): a longer text is no reason to refuse the
    // event, which Mailgun would then retry for hours.
    reason: z.string().nullish(),
    'user-variables': z.record(z.string(), z.unknown()).optional(),
    // Mailgun sends some of these as null or the code as a string on some event kinds: a
    // shape we refuse would be retried for hours and then lost, so they are taken as they come.
    'delivery-status': z
      .object({
        code: z.union([z.number(), z.string().max(10)]).nullish(),
        message: z.string().nullish(),
        description: z.string().nullish(),
      })
      .nullish(),
  }),
});
export type TMailgunWebhook = z.infer<typeof ZMailgunWebhook>;
export type TMailgunEvent = TMailgunWebhook['event-data'];
type TEvent = TMailgunEvent;

/**
 * 406 is the one refusal Mailgun does not retry: it answers what no retry can fix (a bad or
 * expired signature, a signature reused on another event). 404 (no such account, or no
 * signing key yet) is retried, so events sent before the key was saved still arrive, and so
 * is 429 (too many posts naming accounts whose key had to be looked up; `retryAfterSeconds`).
 */
export type TWebhookAnswer =
  | { status: 200 | 404 | 406; message: string }
  | { status: 429; message: string; retryAfterSeconds: number };

/**
 * Key lookups per sender address a minute. A post names its account in the URL, so anyone
 * can post with made-up account ids, and each id not yet known to this process costs a
 * database read: the route's own limit is sized for Mailgun's thousands of events a second,
 * far too many reads to hand out. Mailgun's posts need one read per account a minute
 * (KEY_CACHE_MS); posts for accounts whose key is known are never held back by this.
 */
export const KEY_LOOKUPS_PER_MINUTE = 3_000;

/**
 * Checks a webhook the way Mailgun documents it: HMAC-SHA256 of timestamp + token with the
 * account's webhook signing key, compared in constant time (R9); a signature is taken for
 * as long as Mailgun retries (SIGNATURE_MAX_AGE_SECONDS, R31). Mailgun signs timestamp and
 * token only, not the event, so each token is bound to the event it first came with: the
 * same token with the same event is a retry (200, stored once), with another event a replay
 * (406). The event is stored once by its id and applied in a batch soon after
 * (`applyPendingEvents`), whatever order or however often it arrives (R10).
 */
export const receiveMailgunWebhook = async (
  platform: TPlatform,
  accountId: number,
  body: TMailgunWebhook,
  /** The sender's address, for the limit on key lookups. */
  from = 'local',
): Promise<TWebhookAnswer> => {
  const state = stateOf(platform);
  const key = await webhookKeyOf(platform, state, accountId, from);
  if (key !== null && !(key instanceof KeyObject)) {
    return { status: 429, message: 'Too many posts for unknown accounts.', ...key };
  }
  if (!key) return { status: 404, message: 'No Mailgun account here takes webhooks.' };
  const { timestamp, token, signature } = body.signature;
  const expected = createHmac('sha256', key).update(`${timestamp}${token}`).digest('hex');
  if (!safeEqual(signature, expected)) return { status: 406, message: 'The signature does not match.' };
  const age = Date.now() / 1000 - Number(timestamp);
  if (!/^\d+$/.test(timestamp) || age > SIGNATURE_MAX_AGE_SECONDS || age < -MAX_CLOCK_AHEAD_SECONDS) {
    return { status: 406, message: 'The signature has expired.' };
  }
  const event = body['event-data'];
  const kept = storedEvent(event);
  const eventId = `mailgun:${kept.id}`;
  let boundEventId: string | null;
  try {
    boundEventId = await state.store({ accountId, token: storable(token), eventId, payload: JSON.stringify(kept) });
  } catch (error) {
    if (!isAccountGone(error)) throw error;
    // Deleted while its key was cached: nothing here takes its events any more.
    state.keys.delete(accountId);
    return { status: 404, message: 'No Mailgun account here takes webhooks.' };
  }
  if (boundEventId !== eventId) return { status: 406, message: 'This signature came with another event.' };
  return { status: 200, message: 'ok' };
};

/** The event's account was deleted after its key was read (provider_events' foreign key). */
const isAccountGone = (error: unknown) =>
  (error as { code?: string; constraint?: string }).code === '23503' &&
  (error as { constraint?: string }).constraint === 'provider_events_account_id_fkey';

/**
 * What is kept of an event (R30): what `applyPendingEvents` reads and, for a failure, the
 * provider's own words (clipped) that a bounce screen shows. Mailgun's shape, so events
 * stored whole before this change are read the same way.
 */
export const storedEvent = (event: TEvent): TEvent => {
  const recipientToken = event['user-variables']?.[RECIPIENT_VARIABLE];
  const status = event['delivery-status'];
  return {
    id: storable(event.id),
    event: storable(event.event),
    ...(typeof event.timestamp === 'number' ? { timestamp: event.timestamp } : {}),
    severity: storable(event.severity),
    recipient: storable(event.recipient),
    ...(typeof recipientToken === 'string'
      ? { 'user-variables': { [RECIPIENT_VARIABLE]: storable(recipientToken, 100) } }
      : {}),
    ...(event.event === 'failed'
      ? {
          reason: storable(event.reason, 100),
          'delivery-status': {
            code: typeof status?.code === 'string' ? storable(status.code) : status?.code,
            message: storable(status?.message, PROVIDER_TEXT_LIMIT),
            description: storable(status?.description, PROVIDER_TEXT_LIMIT),
          },
        }
      : {}),
  };
};

/**
 * Text as PostgreSQL takes it: without NUL characters, which neither `text` nor `jsonb`
 * can hold (a remote server's words can carry one, and a refused event would be retried
 * by Mailgun for hours and then lost); clipped to `limit`.
 */
const storable = <T extends string | null | undefined>(text: T, limit?: number): T => {
  if (typeof text !== 'string') return text;
  const kept = text.includes('\0') ? text.replaceAll('\0', '') : text;
  return (limit === undefined ? kept : kept.slice(0, limit)) as T;
};

/** What one process keeps per platform (tests and benches open several in one process). */
type TWebhookState = {
  /** Signing keys of accounts that have one. */
  keys: Map<number, { key: KeyObject; until: number }>;
  /**
   * Account ids with no key (or no Mailgun account), apart from `keys`: a flood of made-up
   * ids fills and empties this map, never the one Mailgun's real posts are answered from.
   */
  keyless: Map<number, number>;
  lookups: ReturnType<typeof createMemoryRateLimiter>;
  /** Stores a verified event with its group; answers the event id its token is bound to. */
  store: (record: TWebhookRecord) => Promise<string | null>;
};

const states = new WeakMap<TPlatform, TWebhookState>();
const stateOf = (platform: TPlatform) => {
  let state = states.get(platform);
  if (!state) {
    state = {
      keys: new Map(),
      keyless: new Map(),
      lookups: createMemoryRateLimiter(10_000),
      store: groupCommit((records: TWebhookRecord[]) => storeGroup(platform, records), {
        maxItems: STORE_GROUP_MAX,
        maxRunning: STORE_GROUPS_RUNNING,
        lingerMs: STORE_GROUP_LINGER_MS,
        // A value the database refuses, an account deleted meanwhile: that post alone fails.
        // A lost connection would fail each again; all wait for Mailgun's retry.
        isolate: (error) => !isConnectionLost(error),
      }),
    };
    states.set(platform, state);
  }
  return state;
};

/** Events stored per statement at most. */
const STORE_GROUP_MAX = 500;
/**
 * Group statements in flight at once, and how long a group forming meanwhile waits for
 * company (group-commit.ts). A commit waits for the disk (3 ms here, more on a loaded
 * one): one group at a time would make every post wait for the group before its own.
 */
const STORE_GROUPS_RUNNING = 4;
const STORE_GROUP_LINGER_MS = 2;

/**
 * Stores a group of verified events in one statement and one commit
 * (`storeWebhookEvents`); each post is answered after the commit that holds its event, so
 * an accepted event survives a crash exactly as with a statement per post, and a crash
 * before the commit answers nothing (Mailgun retries). Under load the round trips and
 * commits are shared (Mailgun posts thousands of events a second).
 */
const storeGroup = async (platform: TPlatform, records: TWebhookRecord[]) => {
  // A token twice in one group is bound to the first of its events, as it would be to the
  // first to commit across groups: a retry of that event is answered 200, another event
  // with it is a replay (406).
  const firstOfToken = new Map<string, TWebhookRecord>();
  for (const record of records) if (!firstOfToken.has(record.token)) firstOfToken.set(record.token, record);
  const { boundEventIds, hasNewEvents } = await storeWebhookEvents(platform.pool, [...firstOfToken.values()]);
  // The events are committed: a queue that fails here delays them until the sending tick
  // applies them, it does not lose them.
  if (hasNewEvents) await scheduleApply(platform).catch((error) => platform.log.error(error));
  return records.map((record) => boundEventIds.get(record.token) ?? null);
};

/**
 * Webhook signing keys by account, for a minute: Mailgun posts thousands of events a
 * second for one account, and a changed key is picked up within the minute.
 */
const KEY_CACHE_MS = 60_000;

/** Cached entries kept per map before it starts over. */
const KEY_CACHE_SIZE = 10_000;

/**
 * The account's signing key (imported once: a string key is imported again by every
 * `createHmac`), null when it has none; `{ retryAfterSeconds }` when `from` has
 * used up its key lookups (KEY_LOOKUPS_PER_MINUTE) and the key is not cached.
 */
const webhookKeyOf = async (
  platform: TPlatform,
  state: TWebhookState,
  accountId: number,
  from: string,
): Promise<KeyObject | null | { retryAfterSeconds: number }> => {
  const now = Date.now();
  const cached = state.keys.get(accountId);
  if (cached && cached.until > now) return cached.key;
  if ((state.keyless.get(accountId) ?? 0) > now) return null;
  const allowed = state.lookups(from, KEY_LOOKUPS_PER_MINUTE, 60, now);
  if (!allowed.isAllowed) return { retryAfterSeconds: allowed.retryAfterSeconds };
  const found = await findWebhookKey(platform, accountId);
  const key = found ? createSecretKey(Buffer.from(found)) : null;
  const cache = key ? state.keys : state.keyless;
  if (cache.size >= KEY_CACHE_SIZE) cache.clear();
  if (key) state.keys.set(accountId, { key, until: Date.now() + KEY_CACHE_MS });
  else state.keyless.set(accountId, Date.now() + KEY_CACHE_MS);
  return key;
};

/**
 * Queues the apply run at most twice a second per process (it takes every event stored
 * until it runs); the minute's tick catches anything a crash left behind.
 */
const lastScheduled = new WeakMap<TPlatform, number>();
const scheduleApply = async (platform: TPlatform) => {
  if (Date.now() - (lastScheduled.get(platform) ?? 0) < 500) return;
  lastScheduled.set(platform, Date.now());
  await platform.queue.enqueue(
    applyEventsJob,
    {},
    { singletonKey: 'apply-events', startAfter: new Date(Date.now() + 500) },
  );
};

/** Rows deleted per statement when pruning, so no statement runs long or locks much. */
const PRUNE_SLICE = 10_000;

const deleteInSlices = async (deleteSlice: () => Promise<{ numAffectedRows?: bigint }>) => {
  let deleted = 0;
  for (;;) {
    const count = Number((await deleteSlice()).numAffectedRows ?? 0n);
    deleted += count;
    if (count < PRUNE_SLICE) return deleted;
  }
};

/**
 * Deletes what replay protection and idempotency no longer need (R30), for the hourly
 * cleanup: tokens past TOKEN_RETENTION_HOURS (their signatures can no longer pass) and
 * applied events past PROVIDER_EVENT_RETENTION_DAYS (at least a day, beyond Mailgun's
 * retries, so a retried event is still recognised by its id). Events not applied yet are
 * never deleted.
 */
export const pruneWebhookRecords = async (platform: TPlatform) => {
  const webhookTokens = await deleteInSlices(() =>
    sql`delete from webhook_tokens where token in (
          select token from webhook_tokens
           where created_at < now() - make_interval(hours => ${TOKEN_RETENTION_HOURS}) limit ${PRUNE_SLICE})`.execute(
      platform.db,
    ),
  );
  const providerEvents = await deleteInSlices(() =>
    sql`delete from provider_events where id in (
          select id from provider_events
           where applied_at < now() - make_interval(days => ${platform.config.providerEventRetentionDays})
           limit ${PRUNE_SLICE})`.execute(platform.db),
  );
  return { webhookTokens, providerEvents };
};
