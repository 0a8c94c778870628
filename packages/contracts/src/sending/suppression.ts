import { z } from 'zod';
import { ZFilterDate } from '../credits/credits';
import { ZStatusMessage } from '../http/errors';
import { defineRoute, ZIdParams } from '../http/routes';
import { pagedResponse, pageQuery } from '../paging/paging';

export const SUPPRESSION_TYPES = [
  'bounce',
  'suppress-bounce',
  'complained',
  'unsubscribed',
  'temporary',
  'generic',
] as const;

/**
 * The temporary suppression rule (issue 27 §7): soft bounces (a full mailbox, a refusal of
 * the message rather than the address, a temporary failure given up) never suppress an
 * address on their own; `softBounces` of them within `withinDays` hold it back for
 * `liftedAfterDays`, after which sends include it again. The Suppression screen shows it.
 */
export const TEMPORARY_SUPPRESSION = { softBounces: 3, withinDays: 15, liftedAfterDays: 30 } as const;

export const TEMPORARY_SUPPRESSION_RULE = `An address whose messages soft-bounce ${TEMPORARY_SUPPRESSION.softBounces} times within ${TEMPORARY_SUPPRESSION.withinDays} days is suppressed as temporary for ${TEMPORARY_SUPPRESSION.liftedAfterDays} days, then sent to again. Hard bounces (no such mailbox or domain) are suppressed for good.`;

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Whether an address's soft bounces (their times) make it temporarily suppressed now, and
 * until when: the rule's count within its window, the lift its length after the last one.
 */
export const temporarySuppressionOf = (softBounces: Date[], now: Date) => {
  const since = now.getTime() - TEMPORARY_SUPPRESSION.withinDays * DAY_MS;
  const recent = softBounces.filter((at) => at.getTime() > since && at.getTime() <= now.getTime());
  if (recent.length < TEMPORARY_SUPPRESSION.softBounces) return null;
  const last = Math.max(...recent.map((at) => at.getTime()));
  return { until: new Date(last + TEMPORARY_SUPPRESSION.liftedAfterDays * DAY_MS) };
};

/** The start of the rule's window for soft bounces counted at `now`. */
export const softBounceWindowStart = (now: Date) => new Date(now.getTime() - TEMPORARY_SUPPRESSION.withinDays * DAY_MS);

/** Spec §3 "Suppression row", with where it came from. */
export const ZSuppression = z.object({
  id: z.number().int(),
  email: z.string(),
  type: z.enum(SUPPRESSION_TYPES),
  quantity: z.number().int(),
  refund: z.boolean(),
  /** 'On List': still subscribed on one of the user's lists; 'Cleaned': on lists, unsubscribed from all; null: on none. */
  status: z.enum(['Cleaned', 'On List']).nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  lists: z.array(
    z.object({ mailing_list: z.string(), id: z.number().int(), account_id: z.number().int(), subscribed: z.boolean() }),
  ),
  reason: z.string().nullable(),
  message: z.string().nullable(),
  description: z.string().nullable(),
  source: z.string().nullable(),
  /** When a temporary suppression lifts (the rule above); null for every other type. */
  expires_at: z.string().nullable(),
});
export type TSuppression = z.infer<typeof ZSuppression>;

export const ZSuppressionQuery = pageQuery({
  columns: ['created_at', 'email', 'type', 'quantity'],
  defaultColumn: 'created_at',
  defaultOrder: 'desc',
}).extend({
  first_date: ZFilterDate.optional(),
  last_date: ZFilterDate.optional(),
  type: z.enum(SUPPRESSION_TYPES).optional(),
  /** '1' shows the hidden too: unsubscribed entries and addresses already cleaned. */
  see_hidden: z.enum(['0', '1']).optional(),
});
export const ZSuppressionPage = pagedResponse(ZSuppression);

/** Spec §7 clear: one `bounce_id`, or several (the spec's `is_array`). */
export const ZClearSuppressions = z.object({
  bounce_id: z.union([
    z.coerce.number().int().positive(),
    z.array(z.coerce.number().int().positive()).min(1).max(1000),
  ]),
  is_array: z.coerce.boolean().optional(),
});

export const suppressionApi = {
  list: defineRoute({ method: 'GET', path: '/suppressions', query: ZSuppressionQuery, response: ZSuppressionPage }),
  export: defineRoute({ method: 'GET', path: '/suppressions/export', query: ZSuppressionQuery, response: z.string() }),
  /** 'Unsubscribe' / 'Unsubscribe Selected': the addresses leave every list of the user. */
  clear: defineRoute({
    method: 'POST',
    path: '/suppressions/clear',
    body: ZClearSuppressions,
    response: ZStatusMessage.extend({ cleaned: z.number().int() }),
  }),
  /** 'Unsubscribe All': every suppressed address still on a list. */
  clearAll: defineRoute({
    method: 'POST',
    path: '/suppressions/clear-all',
    response: ZStatusMessage.extend({ cleaned: z.number().int() }),
  }),
  /** Beyond the spec: reclassify after review (a full mailbox is 'temporary', not a 'bounce'). */
  reclassify: defineRoute({
    method: 'POST',
    path: '/suppressions/:id/type',
    params: ZIdParams,
    body: z.object({ type: z.enum(SUPPRESSION_TYPES) }),
    response: ZStatusMessage,
  }),
  /** Beyond the spec: take an address off the suppression list (a bounce reviewed as a mistake), at Mailgun too. */
  remove: defineRoute({
    method: 'POST',
    path: '/suppressions/:id/remove',
    params: ZIdParams,
    response: ZStatusMessage,
  }),
};
