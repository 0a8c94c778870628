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
