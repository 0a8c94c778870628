import { z } from 'zod';
import { ZFilterDate } from '../credits/credits';
import { defineRoute } from '../http/routes';
import { pagedResponse, pageQuery } from '../paging/paging';

const total = z.object({ total: z.number().int() });

/**
 * One day of the 'Last 30 Days' chart (spec §3 dashboard stats, chart rows): `total` is the
 * day's recipients, `failed.permanent` its bounces (hard and soft: given up), `failed.temporary`
 * its deferrals (still retried, never failures).
 */
export const ZDashboardChartRow = z.object({
  time: z.string(),
  delivered: total,
  failed: z.object({ temporary: total, permanent: total }),
  total: z.number().int(),
});

/** One day of the 'Last 7 Days' table (spec §3 dashboard stats, table rows). */
export const ZDashboardTableRow = z.object({
  time: z.string(),
  accepted: total,
  delivered: total,
  failed: z.object({ permanent: total, temporary: total }),
  complained: total,
  total: z.number().int(),
});

/** The figures of `figures.ts` (R33): `sent` is accepted, `bounced` hard and soft together. */
const counts = z.object({
  sent: z.number().int(),
  delivered: z.number().int(),
  opened: z.number().int(),
  clicked: z.number().int(),
  bounced: z.number().int(),
  unsubscribed: z.number().int(),
  complained: z.number().int(),
  bounced_hard: z.number().int(),
  bounced_soft: z.number().int(),
  deferred: z.number().int(),
  unknown: z.number().int(),
});

export const ZDashboard = z.object({
  status: z.boolean(),
  /** Whether the user has an SMTP / a Gmail account (they report acceptance, not delivery). */
  smtp: z.boolean(),
  google: z.boolean(),
  message: z.string(),
  stats: z.object({
    chart: z.array(ZDashboardChartRow),
    table: z.array(ZDashboardTableRow),
    /** The last 30 days' totals (the radial charts), counted as every screen counts them. */
    tracking: counts,
    /** Each figure's share of the recipients (`ratesOf`). */
    percentage: z.object({
      sent: z.number(),
      delivered: z.number(),
      opened: z.number(),
      clicked: z.number(),
      bounced: z.number(),
      unsubscribed: z.number(),
      complained: z.number(),
    }),
    /** Recipients, each once (a bounce after acceptance is not a second one). */
    general: z.object({ recipients: z.number().int() }),
  }),
});
export type TDashboard = z.infer<typeof ZDashboard>;

export const DELIVERY_EVENT_TYPES = [
  'accepted',
  'delivered',
  'deferred',
  'failed',
  'unknown',
  'opened',
  'clicked',
  'complained',
  'unsubscribed',
] as const;

/** Spec §3 "Delivery event". */
export const ZDeliveryEvent = z.object({
  id: z.number().int(),
  recipient: z.string(),
  event_type: z.string(),
  severity: z.string().nullable(),
  created_at: z.string(),
  delivery_message: z.string().nullable(),
  delivery_description: z.string().nullable(),
  /** Whether this event moves a figure (a recipient's first open or click; false for a repeat). */
  is_first: z.boolean(),
});
export type TDeliveryEvent = z.infer<typeof ZDeliveryEvent>;

/** Spec: the delivery events take the same query as the history tables, date range included. */
export const ZDeliveryEventQuery = pageQuery({
  columns: ['created_at'],
  defaultColumn: 'created_at',
  defaultOrder: 'desc',
}).extend({
  event_type: z.enum(DELIVERY_EVENT_TYPES).optional(),
  first_date: ZFilterDate.optional(),
  last_date: ZFilterDate.optional(),
});

export const dashboardApi = {
  content: defineRoute({ method: 'GET', path: '/dashboard', response: ZDashboard }),
  events: defineRoute({
    method: 'GET',
    path: '/dashboard/delivery-events',
    query: ZDeliveryEventQuery,
    response: pagedResponse(ZDeliveryEvent),
  }),
  export: defineRoute({
    method: 'GET',
    path: '/dashboard/delivery-events/export',
    query: ZDeliveryEventQuery,
    response: z.string(),
  }),
};
