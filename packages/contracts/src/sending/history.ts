import { z } from 'zod';
import { ZFilterDate } from '../credits/credits';
import { pagedResponse, pageQuery } from '../paging/paging';
import { ZAbTestPart, ZAbTestResult } from './ab-test';
import { SEND_FIELDS } from './sending';

/** Spec §3 "History record": type 1 Standard, 2 Scheduled Mail; status 1 Sent, otherwise Pending. */
export const ZHistoryRecord = z.object({
  id: z.number().int(),
  account_id: z.number().int().nullable(),
  /** The account's provider: Mailgun rows expand with lists, statistics and delivery time. */
  provider: z.string().nullable(),
  from: z.string(),
  subject: z.string(),
  to: z.string(),
  type: z.union([z.literal(1), z.literal(2)]),
  status: z.union([z.literal(0), z.literal(1)]),
  /** Sendwell's own state of the send (queued, sending, paused, finished, cancelled, failed…). */
  state: z.string(),
  /** Why the send is where it is, in words for the user (why it failed, waits, or was paused), or null. */
  note: z.string().nullable().optional(),
  recipients_count: z.number().int(),
  sent_count: z.number().int(),
  created_at: z.string(),
  deliver_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  /** The part of an A/B subject test this send is (issue 31 §4), or null. */
  ab_test: ZAbTestPart.nullable().optional(),
});
export type THistoryRecord = z.infer<typeof ZHistoryRecord>;

export const ZHistoryQuery = pageQuery({
  columns: ['created_at', 'subject', 'deliver_at'],
  defaultColumn: 'created_at',
  defaultOrder: 'desc',
}).extend({
  first_date: ZFilterDate.optional(),
  last_date: ZFilterDate.optional(),
  type: z.enum(['1', '2']).optional(),
});
export const ZHistoryPage = pagedResponse(ZHistoryRecord);

/**
 * A send's figures (R33, `figures.ts`): `sent_count` is accepted (a bounce after acceptance
 * stays in it), `failed_count` the bounces, hard and soft, each recipient once.
 */
export const ZSendCounts = z.object({
  recipients_count: z.number().int(),
  sent_count: z.number().int(),
  delivered_count: z.number().int(),
  failed_count: z.number().int(),
  bounced_hard_count: z.number().int(),
  bounced_soft_count: z.number().int(),
  complained_count: z.number().int(),
  unsubscribed_count: z.number().int(),
  clicked_count: z.number().int(),
  opened_count: z.number().int(),
  unknown_count: z.number().int(),
});
export type TSendCounts = z.infer<typeof ZSendCounts>;

export const ZHistoryCounts = z.object({
  status: z.boolean(),
  counts: ZSendCounts,
  isSmtp: z.boolean(),
  isGmail: z.boolean(),
});
export type THistoryCounts = z.infer<typeof ZHistoryCounts>;

/** Spec §3 "History detail row". */
export const HISTORY_EVENT_TYPES = [
  'sent',
  'delivered',
  'failed',
  'opened',
  'clicked',
  'complained',
  'unsubscribed',
] as const;
export const ZHistoryDetail = z.object({
  id: z.number().int(),
  recipient: z.string(),
  event_type: z.string(),
  detail: z.string().nullable(),
  created_at: z.string(),
  /** Whether this event moves a figure (a recipient's first open or click; false for a repeat). */
  is_first: z.boolean(),
});
export type THistoryDetail = z.infer<typeof ZHistoryDetail>;
export const ZHistoryDetailQuery = pageQuery({
  columns: ['created_at', 'recipient', 'event_type'],
  defaultColumn: 'created_at',
  defaultOrder: 'desc',
}).extend({ event_type: z.enum(HISTORY_EVENT_TYPES).optional() });
export const ZHistoryDetailPage = pagedResponse(ZHistoryDetail).extend({
  send: ZHistoryRecord,
  /** The send's figures, the same as History's (R33). */
  counts: ZSendCounts,
  /** The A/B subject test the send is part of, with each subject's figures and the winner; null for others. */
  abTest: ZAbTestResult.nullable().optional(),
});

/** Spec §3 "Scheduled email": status 0 pending, 1 sent, 2 cancelled. */
export const ZScheduledEmail = z.object({
  id: z.number().int(),
  from: z.string(),
  to: z.string(),
  subject: z.string(),
  cc: z.string(),
  bcc: z.string(),
  content: z.object({ cc: z.string(), bcc: z.string(), reply_to: z.string(), message_body: z.string() }),
  account_id: z.number().int().nullable(),
  delivery_time: z.string().nullable(),
  send_time: z.string().nullable(),
  created_at: z.string(),
  status: z.union([z.literal(0), z.literal(1), z.literal(2)]),
});
export type TScheduledEmail = z.infer<typeof ZScheduledEmail>;
export const ZScheduledQuery = pageQuery({
  columns: ['created_at', 'deliver_at', 'subject'],
  defaultColumn: 'created_at',
  defaultOrder: 'desc',
}).extend({ first_date: ZFilterDate.optional(), last_date: ZFilterDate.optional() });
export const ZScheduledPage = pagedResponse(ZScheduledEmail);

/** What Edit Scheduled Email may change; the delivery time is required and in the future. */
export const ZScheduledEdit = z.object({
  subject: SEND_FIELDS.subject,
  message: SEND_FIELDS.message,
  cc: SEND_FIELDS.copies.default(''),
  bcc: SEND_FIELDS.copies.default(''),
  reply_to: SEND_FIELDS.replyTo.default(''),
  delivery_time: z
    .string()
    .min(1, 'The delivery time is required.')
    .refine((value) => !Number.isNaN(Date.parse(value)), 'The delivery time is not a date.'),
});
export type TScheduledEdit = z.infer<typeof ZScheduledEdit>;

/** `GET /email/get-edit-email-data/{editId}` and the scheduled one: a send as a new send's starting point. */
export const ZEditEmailData = z.object({
  status: z.boolean(),
  record: z.object({
    id: z.number().int(),
    from: z.string(),
    to: z.string(),
    list_ids: z.array(z.number().int()),
    subject: z.string(),
    account_id: z.number().int().nullable(),
    delivery_time: z.string().nullable(),
    content: z.object({ cc: z.string(), bcc: z.string(), reply_to: z.string(), message_body: z.string() }),
    /** The builder's document beside the message (issue 46); null for HTML written by hand. */
    document: z.unknown().nullable().default(null),
    /** The address it went from (`alias@domain` for Mailgun), so the form shows the alias again. */
    from_address: z.string(),
    track_opens: z.boolean(),
    track_clicks: z.boolean(),
    /** As the scheduled list says it: 0 pending (may be edited while not started), 1 sent, 2 cancelled. */
    status: z.union([z.literal(0), z.literal(1), z.literal(2)]),
    /** Whether Edit Scheduled Email may still change it: pending and not started. */
    editable: z.boolean(),
  }),
});
