import { z } from 'zod';
import { pagedResponse, pageQuery } from '../paging/paging';

/** The credit log's types (spec: drip-accounts-dashboard §3 credit log row). */
export const CREDIT_TYPES = [
  'verify',
  'spam-check',
  'sale',
  'trial',
  'mon-balance-add',
  'mon-balance-remove',
  'one-time-credit',
] as const;
export const ZCreditType = z.enum(CREDIT_TYPES);
export type TCreditType = z.infer<typeof ZCreditType>;

/** Types that pay for work; their negative entries count as credit used. */
export const SPENDING_CREDIT_TYPES: readonly TCreditType[] = ['verify', 'spam-check'];

export const CREDIT_LOG_DEFAULT_PER_PAGE = 15;

/**
 * The spec's credit fields (sending-lists-verification §3): total, used, and usable =
 * total − used, which is what the user can spend now. Total is every credit the user was
 * given (trial, monthly, bought, granted) less what was taken back (a plan's monthly
 * credits ending); used is what work (verification, spam tests) spent, net of refunds.
 */
export const ZCreditBalance = z.object({
  totalCredit: z.number().int(),
  usedCredit: z.number().int(),
});
export type TCreditBalance = z.infer<typeof ZCreditBalance>;

/** What the user can spend now: total − used, never below zero. */
export const usableCredit = (balance: TCreditBalance): number => Math.max(0, balance.totalCredit - balance.usedCredit);

export const ZCreditLogEntry = z.object({
  id: z.number().int(),
  type: ZCreditType,
  quantity: z.number().int(),
  reference: z.string().nullable(),
  created_at: z.string(),
});
export type TCreditLogEntry = z.infer<typeof ZCreditLogEntry>;

/** Dates as the spec's filters send them: YYYY-MM-DD, or YYYY-MM-DD HH:mm:ss. */
export const ZFilterDate = z
  .string()
  .trim()
  .regex(/^\d{4}-\d{2}-\d{2}( \d{2}:\d{2}(:\d{2})?)?$/, { message: 'Dates must look like YYYY-MM-DD.' });

export const ZCreditLogQuery = pageQuery({
  columns: ['created_at', 'type', 'quantity'],
  defaultColumn: 'created_at',
  defaultOrder: 'desc',
  defaultPerPage: CREDIT_LOG_DEFAULT_PER_PAGE,
}).extend({
  first_date: ZFilterDate.optional(),
  last_date: ZFilterDate.optional(),
  type: ZCreditType.optional(),
});
export type TCreditLogQuery = z.infer<typeof ZCreditLogQuery>;

export const ZCreditLogPage = pagedResponse(ZCreditLogEntry);
