import { z } from 'zod';
import { pagedResponse, pageQuery } from '../paging/paging';
import { ZTicket } from '../support/support';

export const ZOperatorUser = z.object({
  id: z.number().int(),
  email: z.string(),
  name: z.string(),
  role: z.enum(['user', 'operator']),
  disabled: z.boolean(),
  plan: z.object({ id: z.number().int(), name: z.string() }),
  credit: z.object({ totalCredit: z.number().int(), usedCredit: z.number().int() }),
  created_at: z.string(),
});
export type TOperatorUser = z.infer<typeof ZOperatorUser>;

export const ZOperatorUserQuery = pageQuery({
  columns: ['created_at', 'email', 'name'],
  defaultColumn: 'created_at',
  defaultOrder: 'desc',
});
export const ZOperatorUserPage = pagedResponse(ZOperatorUser);

const reason = z.string().trim().min(3, 'Say why, in at least 3 characters.').max(500);

export const ZCreditChange = z.object({
  action: z.enum(['grant', 'remove']),
  amount: z.coerce.number().int().min(1, 'At least 1 credit.').max(10_000_000),
  reason,
});
export type TCreditChange = z.infer<typeof ZCreditChange>;

export const ZUserPlanChange = z.object({ planId: z.coerce.number().int().positive() });
export const ZUserDisable = z.object({ disabled: z.boolean(), reason });

/** The most an operator may allow an account a day: well past any server a self-hoster runs. */
export const OPERATOR_DAILY_CAP_MAX = 10_000_000;

export const OPERATOR_ACCOUNT_MESSAGES = {
  dailyCapInvalid: `The daily cap must be a whole number from 1 to ${OPERATOR_DAILY_CAP_MAX.toLocaleString('en-US')}.`,
  notCapped: 'Only SMTP and Gmail accounts have a daily cap; Mailgun and the test inbox are not capped.',
} as const;

/**
 * A user's sending account as the operator sees it: what caps it. The user's form keeps the
 * spec's Maximum Email per Day (1 to 1,000); the operator's cap, when set, applies instead.
 */
export const ZOperatorAccount = z.object({
  id: z.number().int(),
  name: z.string(),
  provider: z.enum(['mailgun', 'smtp', 'google']),
  driver: z.string().nullable(),
  host: z.string().nullable(),
  /** Whether the engine caps its messages a day at all (SMTP and Gmail; not Mailgun, not the test inbox). */
  capped: z.boolean(),
  /** The user's own Maximum Email per Day. */
  mail_per_day: z.number().int(),
  /** The operator's cap, or null: the user's own setting holds. */
  operator_mail_per_day: z.number().int().nullable(),
  /** What the account may send a day now, or null when it is not capped. */
  daily_cap: z.number().int().nullable(),
  /** Messages it sent in the cap's window, the last 24 hours (the spec-era name stays); 0 when not capped. */
  sent_today: z.number().int(),
});
export type TOperatorAccount = z.infer<typeof ZOperatorAccount>;

/** Sets an account's daily cap (`dailyCap`), or gives it back to the user's own setting (null). */
export const ZDailyCapChange = z.object({
  dailyCap: z.coerce
    .number({ message: OPERATOR_ACCOUNT_MESSAGES.dailyCapInvalid })
    .int({ message: OPERATOR_ACCOUNT_MESSAGES.dailyCapInvalid })
    .min(1, { message: OPERATOR_ACCOUNT_MESSAGES.dailyCapInvalid })
    .max(OPERATOR_DAILY_CAP_MAX, { message: OPERATOR_ACCOUNT_MESSAGES.dailyCapInvalid })
    .nullable(),
  reason,
});
export type TDailyCapChange = z.infer<typeof ZDailyCapChange>;

/** A plan as the operator edits it (the admin commands' fields). */
export const ZOperatorPlan = z.object({
  id: z.number().int(),
  name: z.string(),
  plan_name: z.string(),
  price: z.number(),
  is_free: z.boolean(),
  monthly_credits: z.number().int(),
  trial_credits: z.number().int(),
  allows_scheduling: z.boolean(),
  allows_accounts: z.boolean(),
  stripe_price_id: z.string().nullable(),
  users: z.number().int(),
});
export type TOperatorPlan = z.infer<typeof ZOperatorPlan>;

export const ZPlanInput = z.object({
  name: z.string().trim().min(2, 'Give the plan a name.').max(100),
  plan_name: z
    .string()
    .trim()
    .regex(/^[a-z0-9][a-z0-9-]{1,49}$/, 'A slug: lower-case letters, digits and dashes (2 to 50).'),
  price: z.coerce.number().min(0, 'The price cannot be negative.').max(100_000),
  monthly_credits: z.coerce.number().int().min(0).max(100_000_000),
  trial_credits: z.coerce.number().int().min(0).max(100_000_000),
  allows_scheduling: z.boolean(),
  allows_accounts: z.boolean(),
  stripe_price_id: z.string().trim().max(200).nullable(),
});
export type TPlanInput = z.infer<typeof ZPlanInput>;

export const ZOperatorTicket = ZTicket.extend({
  user_id: z.number().int().nullable(),
  messages_count: z.number().int(),
});
export const ZOperatorTicketQuery = pageQuery({
  columns: ['date_last_response', 'date_created', 'subject'],
  defaultColumn: 'date_last_response',
  defaultOrder: 'desc',
}).extend({ status: z.enum(['active', 'closed', 'all']).default('active') });
export const ZOperatorTicketPage = pagedResponse(ZOperatorTicket);

export const ZAnnouncementInput = z.object({
  title: z.string().trim().min(1, 'Give a title.').max(200),
  body: z.string().trim().min(1, 'Write the announcement.').max(10_000),
});
export type TAnnouncementInput = z.infer<typeof ZAnnouncementInput>;

export const ZSystemStatus = z.object({
  queues: z.array(
    z.object({ name: z.string(), queued: z.number().int(), active: z.number().int(), failed: z.number().int() }),
  ),
  workers: z.object({ alive: z.number().int() }),
  errors: z.array(z.object({ queue: z.string(), failed_at: z.string(), message: z.string() })),
  testInbox: z.boolean(),
  database: z.object({ size_bytes: z.number() }),
  /** Whether email verification's SMTP probe reaches receiving servers (outbound port 25). */
  verificationProbe: z.object({
    blockedSince: z.string().nullable(),
    lastReachedAt: z.string().nullable(),
    unreachableDomains: z.number().int(),
    detail: z.string().nullable(),
    port: z.number().int(),
  }),
  /**
   * The DNS resolver as email verification and the pre-send check last saw it (R48): broken
   * when it did not find names that must exist. One entry per asker that has asked.
   */
  resolvers: z.array(
    z.object({
      source: z.enum(['verification', 'pre-send']),
      /** The servers asked; empty for the system's. */
      servers: z.string(),
      brokenSince: z.string().nullable(),
      lastOkAt: z.string().nullable(),
      detail: z.string().nullable(),
    }),
  ),
});
export type TSystemStatus = z.infer<typeof ZSystemStatus>;

export const ZAuditEntry = z.object({
  id: z.number().int(),
  operator_email: z.string(),
  action: z.string(),
  target_type: z.string(),
  target_id: z.string().nullable(),
  details: z.record(z.string(), z.unknown()),
  created_at: z.string(),
});
export const ZAuditQuery = pageQuery({ columns: ['created_at'], defaultColumn: 'created_at', defaultOrder: 'desc' });
export const ZAuditPage = pagedResponse(ZAuditEntry);
