import { z } from 'zod';
import { ZBreakerState } from '../sending/circuit-breaker';

/**
 * Every event the private per-user channel carries, by name, with its payload.
 * Server code publishes only names listed here; the web hook subscribes by name.
 */
export const realtimeEvents = {
  /** The credit balance changed (billing issue). */
  CreditBalanceEvent: z.object({ totalCredit: z.number(), usedCredit: z.number() }),
  /** A new in-app notification for the user. */
  NotificationEvent: z.object({
    id: z.number().int(),
    title: z.string(),
    body: z.string(),
    link: z.string().nullable(),
    unread: z.number().int(),
  }),
  /** The built-in test inbox received a message for this user. */
  TestInboxMessageEvent: z.object({ id: z.number().int(), subject: z.string() }),
  /** A background list import moved on (read, saved, finished or failed). */
  ListImportProgressEvent: z.object({
    id: z.number().int(),
    list_id: z.number().int(),
    status: z.enum(['queued', 'running', 'finished', 'failed']),
    stage: z.enum(['reading', 'saving', 'done']),
    bytes_total: z.number().int(),
    bytes_read: z.number().int(),
    rows_read: z.number().int(),
    added: z.number().int(),
    updated: z.number().int(),
    skipped: z.number().int(),
    duplicates: z.number().int(),
    error: z.string().nullable(),
  }),
  /** A send moved on: its status and counters (the Send Email page's progress bar). */
  SendProgressEvent: z.object({
    id: z.number().int(),
    status: z.string(),
    recipients_count: z.number().int(),
    sent_count: z.number().int(),
    failed_count: z.number().int(),
    unknown_count: z.number().int(),
    note: z.string().nullable(),
    /** Why the circuit breaker paused the send (issue 31); null if it never did. */
    breaker_reason: z.string().nullable().optional(),
    /** The breaker's live figures beside its reason (issue 45 §3); null for a send it never touched. */
    breaker: ZBreakerState.nullable().optional(),
  }),
  /** An operator answered or closed one of the user's tickets: the badge and the open ticket refresh. */
  TicketEvent: z.object({ id: z.number().int(), unread: z.number().int() }),
  /** A verification job moved on (the tool's progress bar and results). */
  VerificationProgressEvent: z.object({
    id: z.number().int(),
    /** The list a "Verify Your List" job verifies; null for the tool's jobs. */
    list_id: z.number().int().nullable().optional(),
    status: z.string(),
    total: z.number().int(),
    checked: z.number().int(),
    valid: z.number().int(),
    invalid: z.number().int(),
    unknown: z.number().int(),
    /** Spec §3 "Verification progress": the job's id again, its repeats left out, results re-used, distinct entries, percent. */
    checkListId: z.number().int().optional(),
    duplicate: z.number().int().optional(),
    controlledBefore: z.number().int().optional(),
    uniqueEmails: z.number().int().optional(),
    bar: z.number().int().optional(),
  }),
  VerifyEmailUpsell: z.object({
    checkListId: z.number().int(),
    data: z.object({ valid: z.number(), unknown: z.number(), invalid: z.number() }),
  }),
  VerifyProgressDoneForUpsell: z.object({ status: z.boolean(), checkListId: z.number().int() }),
  /**
   * A send that waited for its lists' verification (the verify-lists upsell) went out: the
   * spec's payload, and the send's id (null when it could not start: `error` says why).
   */
  UpsellStart: z.object({
    mailingListIds: z.array(z.number().int()),
    storageId: z.string(),
    sendId: z.number().int().nullable().optional(),
    error: z.string().nullable().optional(),
  }),
  /** A spam test moved on: its message arrived, was scored, or never came (credits refunded). */
  SpamTestEvent: z.object({
    id: z.number().int(),
    status: z.enum(['waiting', 'received', 'scored', 'failed']),
    score: z.number().nullable(),
  }),
} as const;

export type TRealtimeEventName = keyof typeof realtimeEvents;
export type TRealtimePayload<E extends TRealtimeEventName> = z.infer<(typeof realtimeEvents)[E]>;
export type TRealtimeMessage = { event: TRealtimeEventName; payload: unknown };

/** Close codes the server uses on the realtime socket. */
export const REALTIME_CLOSE = {
  signedOut: 4401,
  forbiddenOrigin: 4403,
} as const;

export const REALTIME_PATH = '/api/realtime';
