import { z } from 'zod';
import { ZPageMeta } from '../paging/paging';

/**
 * Webhooks out (issue 48 §3): what happened, POSTed to URLs a user registers, signed, retried
 * with backoff for a day, at least once and in order per member.
 */
export const WEBHOOK_EVENT_TYPES = [
  'member.subscribed',
  'member.confirmed',
  'member.unsubscribed',
  'message.delivered',
  'message.bounced',
  'message.complained',
  'message.opened',
  'message.clicked',
  'send.finished',
  'send.paused',
  'campaign.stopped',
] as const;
export type TWebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
/** What the "Send a test event" button sends: never retried, never ordered behind anything. */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

export const WEBHOOK_EVENT_DESCRIPTIONS: Record<TWebhookEventType, string> = {
  'member.subscribed':
    'An address was added to a list, or subscribed again (one by one, through the app or the API; file imports and Mailgun syncs send none).',
  'member.confirmed': 'A member confirmed their subscription (double opt-in).',
  'member.unsubscribed': 'A member unsubscribed: through a message, a complaint, the app or the API.',
  'message.delivered': 'The provider reports the message reached the receiving server (Mailgun).',
  'message.bounced': 'A message failed for good: a hard bounce (the address) or a soft one (the message).',
  'message.complained': 'The recipient reported the message as spam.',
  'message.opened': 'The recipient opened the message (every open; `first` says whether it was the first).',
  'message.clicked': 'The recipient clicked a tracked link (every click; `first` says whether it was the first).',
  'send.finished': 'A send went to all its recipients; its figures are in the event.',
  'send.paused': 'A send was paused by the circuit breaker (too many bounces or complaints).',
  'campaign.stopped':
    'A drip campaign was stopped by the circuit breaker (too many bounces or complaints); no step goes until it is started again.',
};

/**
 * How a delivery is signed: `Sendwell-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256>`,
 * the HMAC keyed with the endpoint's secret over `<t>.<raw body>` (Stripe's scheme). A
 * receiver recomputes it, compares in constant time and refuses a `t` older than a few minutes.
 */
export const WEBHOOK_SIGNATURE_HEADER = 'Sendwell-Signature';
export const WEBHOOK_EVENT_ID_HEADER = 'Sendwell-Event-Id';
/** How long a delivery is retried after its event, with backoff, before it is given up. */
export const WEBHOOK_RETRY_HOURS = 24;
/** Endpoints one user may register. */
export const WEBHOOK_ENDPOINTS_PER_USER = 20;

export const WEBHOOK_MESSAGES = {
  created: 'Your webhook has been saved. Copy its signing secret now to check the signatures.',
  saved: 'Your webhook has been saved.',
  deleted: 'The webhook has been deleted.',
  tooMany: `You can register at most ${WEBHOOK_ENDPOINTS_PER_USER} webhooks.`,
  urlInvalid: 'Enter an http:// or https:// address.',
  notFound: 'This webhook does not exist.',
} as const;

export const ZWebhookEventType = z.enum(WEBHOOK_EVENT_TYPES);

export const ZWebhookEndpoint = z.object({
  id: z.number().int(),
  url: z.string(),
  description: z.string(),
  events: z.array(ZWebhookEventType),
  is_enabled: z.boolean(),
  created_at: z.string(),
  /** Deliveries waiting (or being retried) right now. */
  pending: z.number().int(),
});
export type TWebhookEndpoint = z.infer<typeof ZWebhookEndpoint>;

const webhookUrl = z
  .string({ message: WEBHOOK_MESSAGES.urlInvalid })
  .trim()
  .max(2000, { message: 'The address may be at most 2,000 characters.' })
  .refine(
    (value) => {
      try {
        const url = new URL(value);
        return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '' && !url.username;
      } catch {
        return false;
      }
    },
    { message: WEBHOOK_MESSAGES.urlInvalid },
  );

export const ZSaveWebhookRequest = z.object({
  url: webhookUrl,
  description: z.string().trim().max(200).optional().default(''),
  events: z
    .array(ZWebhookEventType)
    .min(1, { message: 'Choose at least one event.' })
    .transform((events) => WEBHOOK_EVENT_TYPES.filter((type) => events.includes(type))),
  is_enabled: z.boolean().optional().default(true),
});
export type TSaveWebhookRequest = z.input<typeof ZSaveWebhookRequest>;

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

/** One attempt to deliver an event: what the receiver answered, or why nothing came back. */
export const ZWebhookAttempt = z.object({
  at: z.string(),
  status_code: z.number().int().nullable(),
  /** The start of the receiver's answer (at most 500 characters), or the error. */
  response: z.string(),
  duration_ms: z.number().int(),
});

export const ZWebhookDelivery = z.object({
  id: z.number().int(),
  event_id: z.string(),
  type: z.string(),
  status: z.enum(WEBHOOK_DELIVERY_STATUSES),
  attempts: z.array(ZWebhookAttempt),
  created_at: z.string(),
  next_attempt_at: z.string().nullable(),
});
export type TWebhookDelivery = z.infer<typeof ZWebhookDelivery>;
export const ZWebhookDeliveryPage = z.object({ data: z.array(ZWebhookDelivery), meta: ZPageMeta });

export const ZWebhookTestResult = z.object({
  status: z.boolean(),
  message: z.string(),
  data: ZWebhookDelivery,
});

/**
 * The body of every delivery: `data` holds the event's facts (each type's fields in
 * README.md, "Webhooks"). `id` is the same on every retry: receivers drop a repeat.
 */
export type TWebhookBody = {
  id: string;
  type: TWebhookEventType | typeof WEBHOOK_TEST_EVENT;
  created_at: string;
  data: Record<string, unknown>;
};
