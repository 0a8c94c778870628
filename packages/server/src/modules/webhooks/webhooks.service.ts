import { randomUUID } from 'node:crypto';
import {
  pageMeta,
  type TWebhookBody,
  type TWebhookDelivery,
  type TWebhookEndpoint,
  type TWebhookEventType,
  WEBHOOK_ENDPOINTS_PER_USER,
  WEBHOOK_EVENT_ID_HEADER,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_MESSAGES,
  WEBHOOK_RETRY_HOURS,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TEST_EVENT,
  type ZSaveWebhookRequest,
  type ZWebhookDeliveryPage,
} from '@sendwell/contracts';
import type { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import type { Executor } from '../../platform/db';
import { decryptSecret, encryptSecret } from '../../platform/encryption';
import { fieldError, HttpError, notFound } from '../../platform/errors';
import type { TEventSink, TOutboundEvent } from '../module';
import { newWebhookSecret, signatureHeader } from './signing';
import { guardWebhookUrl, postWebhook } from './webhook-http';
import { deliverWebhooksJob } from './webhooks.jobs';
import * as repository from './webhooks.repository';

// --- endpoints (Settings → Webhooks) ---

const secretContext = (endpointId: number) => `webhook_endpoints:${endpointId}:secret`;

const toEndpoint = (row: repository.TEndpointRow): TWebhookEndpoint => ({
  id: row.id,
  url: row.url,
  description: row.description,
  events: WEBHOOK_EVENT_TYPES.filter((type) => row.event_types.includes(type)),
  is_enabled: row.is_enabled,
  created_at: row.created_at.toISOString(),
  pending: row.pending,
});

export const listEndpoints = async (platform: TPlatform, userId: number) =>
  (await repository.listEndpoints(platform.db, userId)).map(toEndpoint);

/** The user's endpoint (another user's, or none: 404). */
const requireEndpoint = async (platform: TPlatform, userId: number, endpointId: number) => {
  const endpoint = await repository.findEndpoint(platform.db, userId, endpointId);
  if (!endpoint) throw notFound(WEBHOOK_MESSAGES.notFound);
  return endpoint;
};

const endpointOf = async (platform: TPlatform, userId: number, endpointId: number) => {
  const found = (await repository.listEndpoints(platform.db, userId)).find((row) => row.id === endpointId);
  if (!found) throw notFound(WEBHOOK_MESSAGES.notFound);
  return toEndpoint(found);
};

/**
 * The outbound guard at save (R35, R44): the URL's host must resolve to public addresses
 * only (loopback where the operator allows it for development); said as a field error.
 */
const checkUrl = async (platform: TPlatform, url: string) => {
  try {
    await guardWebhookUrl(url, { allowLoopback: platform.config.webhooks.allowLoopback });
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    throw fieldError(
      'url',
      error.code === 'HOST_NOT_ALLOWED'
        ? 'Sendwell does not deliver webhooks to local, private or metadata addresses. Use a public address.'
        : error.message,
    );
  }
};

/** Registers an endpoint; answers it with its signing secret (encrypted at rest, bound to its row). */
export const createEndpoint = async (
  platform: TPlatform,
  userId: number,
  request: z.output<typeof ZSaveWebhookRequest>,
) => {
  if ((await repository.countEndpoints(platform.db, userId)) >= WEBHOOK_ENDPOINTS_PER_USER) {
    throw new HttpError(422, WEBHOOK_MESSAGES.tooMany, 'TOO_MANY_WEBHOOKS');
  }
  await checkUrl(platform, request.url);
  const secret = newWebhookSecret();
  const id = await platform.db.transaction().execute(async (trx) => {
    const { id } = await repository.insertEndpoint(trx, {
      userId,
      url: request.url,
      description: request.description,
      events: request.events,
      isEnabled: request.is_enabled,
    });
    await repository.setEndpointSecret(
      trx,
      id,
      encryptSecret(platform.secrets.encryptionKey, secret, secretContext(id)),
    );
    return id;
  });
  return { data: await endpointOf(platform, userId, id), secret };
};

export const updateEndpoint = async (
  platform: TPlatform,
  userId: number,
  endpointId: number,
  request: z.output<typeof ZSaveWebhookRequest>,
) => {
  await requireEndpoint(platform, userId, endpointId);
  await checkUrl(platform, request.url);
  await repository.updateEndpoint(platform.db, userId, endpointId, {
    url: request.url,
    description: request.description,
    events: request.events,
    isEnabled: request.is_enabled,
  });
  return endpointOf(platform, userId, endpointId);
};

export const deleteEndpoint = async (platform: TPlatform, userId: number, endpointId: number) => {
  if (!(await repository.deleteEndpoint(platform.db, userId, endpointId))) throw notFound(WEBHOOK_MESSAGES.notFound);
};

const secretOf = (platform: TPlatform, endpoint: { id: number; secret: Buffer | null }) => {
  if (!endpoint.secret) throw new Error(`Webhook endpoint ${endpoint.id} has no secret.`);
  return decryptSecret(platform.secrets.encryptionKey, endpoint.secret, secretContext(endpoint.id));
};

export const revealSecret = async (platform: TPlatform, userId: number, endpointId: number) => {
  const endpoint = await requireEndpoint(platform, userId, endpointId);
  return { data: await endpointOf(platform, userId, endpointId), secret: secretOf(platform, endpoint) };
};

// --- the queue: events in, deliveries out ---

const bodyOf = (eventId: string, type: string, occurredAt: Date, data: Record<string, unknown>): TWebhookBody => ({
  id: eventId,
  type: type as TWebhookBody['type'],
  created_at: occurredAt.toISOString(),
  data,
});

/**
 * The event sink this module registers (`TEventSink`, issue 48 §3): a delivery per event and
 * endpoint that takes it, in the caller's transaction, and the endpoints' delivery jobs
 * queued in it too, so a delivery exists exactly when the change it tells of committed and
 * its job with it.
 */
export const queueEvents: TEventSink = async (platform, trx, events) => {
  const wanted = await repository.findWantedTypes(trx, [...new Set(events.map((event) => event.userId))]);
  const taken = events.filter((event) => wanted.has(`${event.userId}:${event.type}`));
  if (taken.length === 0) return;
  const endpointIds = await repository.insertDeliveries(
    trx,
    taken.map((event: TOutboundEvent) => {
      const eventId = `evt_${randomUUID().replaceAll('-', '')}`;
      return {
        userId: event.userId,
        eventId,
        type: event.type,
        orderingKey: event.orderingKey,
        payload: JSON.stringify(bodyOf(eventId, event.type, event.occurredAt ?? new Date(), event.data)),
      };
    }),
  );
  // In one order everywhere: two transactions queueing jobs for the same endpoints wait for each
  // other (the queue's unique key per endpoint) and must not wait in a circle.
  for (const endpointId of endpointIds.sort((a, b) => a - b)) await queueDelivery(platform, endpointId, trx);
};

/** One delivery job per endpoint waiting or running at a time (the queue's `stately` policy). */
export const queueDelivery = (platform: TPlatform, endpointId: number, executor?: Executor) =>
  platform.queue.enqueue(
    deliverWebhooksJob,
    { endpointId },
    { singletonKey: `webhook-${endpointId}`, ...(executor ? { executor } : {}) },
  );

/**
 * When a failed attempt is tried again: 30 s, 2 min, 10 min, 30 min, then every 1, 2, 4 and
 * 6 hours, never past 24 hours after the event; after that the delivery has failed.
 */
const RETRY_DELAYS_MS = [30_000, 120_000, 600_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000, 21_600_000];
export const nextAttemptAt = (attempts: number, createdAt: Date, now = new Date()): Date | null => {
  const deadline = createdAt.getTime() + WEBHOOK_RETRY_HOURS * 3_600_000;
  if (now.getTime() >= deadline) return null;
  const delay = RETRY_DELAYS_MS[Math.min(attempts, RETRY_DELAYS_MS.length) - 1] ?? RETRY_DELAYS_MS.at(-1)!;
  return new Date(Math.min(now.getTime() + delay, deadline));
};

/** Requests one endpoint gets at once (different members; one member's go one after another). */
const IN_FLIGHT = 8;
/** Deliveries one claim takes: their answers are recorded together when the last has come. */
const CLAIM_SIZE = IN_FLIGHT * 8;

/**
 * A worker's hold on the deliveries of a claim: every one of them may take the receiver's
 * whole timeout, `IN_FLIGHT` at a time, and then the answers are recorded; with room.
 */
const leaseMsOf = (platform: TPlatform, size = CLAIM_SIZE) =>
  platform.config.webhooks.timeoutMs * Math.ceil(size / IN_FLIGHT) + 30_000;

/** One attempt: signed afresh (its own time), posted through the guard; answers what to record. */
const attempt = async (
  platform: TPlatform,
  endpoint: { id: number; url: string; secret: Buffer | null },
  delivery: repository.TClaimedDelivery,
  { retries }: { retries: boolean },
): Promise<repository.TAttemptRecord> => {
  const body = JSON.stringify(delivery.payload);
  const answer = await postWebhook(
    endpoint.url,
    body,
    {
      [WEBHOOK_SIGNATURE_HEADER]: signatureHeader(secretOf(platform, endpoint), body),
      [WEBHOOK_EVENT_ID_HEADER]: delivery.event_id,
      'Sendwell-Event-Type': delivery.type,
    },
    { allowLoopback: platform.config.webhooks.allowLoopback, timeoutMs: platform.config.webhooks.timeoutMs },
  );
  const isDelivered = answer.statusCode !== null && answer.statusCode >= 200 && answer.statusCode < 300;
  return {
    id: delivery.id,
    userId: delivery.user_id,
    isDelivered,
    nextAttemptAt: isDelivered || !retries ? null : nextAttemptAt(delivery.attempts, delivery.created_at),
    ...answer,
  };
};

/** A run gives its endpoint up after this long, and queues itself again, so one receiver cannot hold a worker. */
const RUN_MS = 60_000;

/**
 * The delivery job's work: claims the endpoint's due heads (one per ordering key), posts
 * them side by side, records each answer, and again until nothing is due. At least once:
 * a worker that dies mid-request leaves its lease, and the delivery is taken again when the
 * lease ends (the receiver may see it twice; `id` tells it so). Answers how many it delivered.
 */
export const deliverDue = async (platform: TPlatform, endpointId: number) => {
  const endpoint = await repository.findEndpointById(platform.db, endpointId);
  // A webhook turned off keeps its deliveries waiting (given up a day after their events).
  if (!endpoint?.is_enabled) return 0;
  const started = Date.now();
  let delivered = 0;
  for (;;) {
    if (platform.stopping.aborted || Date.now() - started > RUN_MS) {
      await queueDelivery(platform, endpointId);
      return delivered;
    }
    const leaseToken = randomUUID();
    const claimed = await repository.claimDue(platform.db, endpointId, leaseToken, leaseMsOf(platform), CLAIM_SIZE);
    if (claimed.length === 0) return delivered;
    let next = 0;
    const records: repository.TAttemptRecord[] = [];
    const lane = async () => {
      while (next < claimed.length) {
        const record = await attempt(platform, endpoint, claimed[next++]!, { retries: true });
        records.push(record);
        if (record.isDelivered) delivered += 1;
      }
    };
    await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, claimed.length) }, lane));
    await repository.settleAttempts(platform.db, leaseToken, records);
  }
};

/** The minute's sweep: every endpoint with deliveries due (retries coming due, a job lost) gets its job. */
export const queueDueDeliveries = async (platform: TPlatform) => {
  const endpointIds = await repository.findEndpointsDue(platform.db);
  for (const endpointId of endpointIds) await queueDelivery(platform, endpointId);
  return endpointIds.length;
};

/**
 * "Send a test event": a `webhook.test` delivery to this endpoint, attempted now, once (not
 * retried, ordered behind nothing); answers what the receiver said, and the log has it.
 */
export const sendTestEvent = async (platform: TPlatform, userId: number, endpointId: number) => {
  const endpoint = await requireEndpoint(platform, userId, endpointId);
  const eventId = `evt_${randomUUID().replaceAll('-', '')}`;
  const payload = bodyOf(eventId, WEBHOOK_TEST_EVENT, new Date(), {
    message: 'A test event from Sendwell. Check its signature as you would any event.',
    endpoint_id: endpoint.id,
  });
  const { id } = await repository.insertTestDelivery(platform.db, endpoint, {
    userId,
    eventId,
    type: WEBHOOK_TEST_EVENT,
    orderingKey: `test:${eventId}`,
    payload: JSON.stringify(payload),
  });
  const leaseToken = randomUUID();
  const claimed = await repository.claimOne(platform.db, id, leaseToken, leaseMsOf(platform, 1));
  const answer = await attempt(platform, endpoint, claimed!, { retries: false });
  await repository.settleAttempts(platform.db, leaseToken, [answer]);
  const [delivery] = await repository.pageDeliveries(platform.db, userId, endpointId, 1, 0);
  return {
    status: answer.isDelivered,
    message: answer.isDelivered
      ? `Delivered: the receiver answered ${answer.statusCode} in ${answer.durationMs} ms.`
      : answer.statusCode === null
        ? `Not delivered: ${answer.response}`
        : `Not delivered: the receiver answered ${answer.statusCode}.`,
    data: toDelivery(delivery!),
  };
};

// --- the log ---

const toDelivery = (row: Awaited<ReturnType<typeof repository.pageDeliveries>>[number]): TWebhookDelivery => ({
  id: row.id,
  event_id: row.event_id,
  type: row.type,
  status: row.status,
  attempts: row.attempts.map((attempt) => ({ ...attempt, at: new Date(attempt.at).toISOString() })),
  created_at: row.created_at.toISOString(),
  next_attempt_at: row.status === 'pending' ? row.next_attempt_at.toISOString() : null,
});

export const listDeliveries = async (
  platform: TPlatform,
  userId: number,
  endpointId: number,
  query: { page: number; per_page: number },
): Promise<z.infer<typeof ZWebhookDeliveryPage>> => {
  await requireEndpoint(platform, userId, endpointId);
  const total = await repository.countDeliveries(platform.db, userId, endpointId);
  const rows = await repository.pageDeliveries(
    platform.db,
    userId,
    endpointId,
    query.per_page,
    (query.page - 1) * query.per_page,
  );
  return { data: rows.map(toDelivery), meta: pageMeta(total, query.page, query.per_page) };
};

/** How long settled deliveries stay in the log. */
const LOG_DAYS = 30;

/** This module's part of the hourly cleanup (R30). */
export const pruneWebhookLog = async (platform: TPlatform) => ({
  webhookDeliveries: await repository.pruneDeliveries(platform.db, LOG_DAYS),
});

export type { TWebhookEventType };
