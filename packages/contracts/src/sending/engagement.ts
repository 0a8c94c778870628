import { z } from 'zod';
import { SEND_FIELDS } from './sending';

/**
 * Re-send by engagement (issue 31 §3): from a finished send's History row, a new send to its
 * recipients who did not open it, who opened it, or who clicked (a link of it). Suppressed
 * and unsubscribed addresses, and those no longer subscribed to its lists, are left out.
 */
export const ENGAGEMENT_AUDIENCES = ['not-opened', 'opened', 'clicked'] as const;
export type TEngagementAudience = (typeof ENGAGEMENT_AUDIENCES)[number];

export const ENGAGEMENT_LABELS: Record<TEngagementAudience, string> = {
  'not-opened': 'Send to those who did not open',
  opened: 'Send to those who opened',
  clicked: 'Send to those who clicked',
};

export const ZEngagementAudience = z.object({
  audience: z.enum(ENGAGEMENT_AUDIENCES, { message: 'Choose who gets it: did not open, opened or clicked.' }),
  /** Clicked this link of the send (its id in the send's links); any link when absent. */
  linkId: z.coerce.number().int().positive().optional(),
});

export const ZEngagementResend = ZEngagementAudience.extend({
  /** A new subject (a re-send to those who did not open often gets one); the send's own when blank. */
  subject: SEND_FIELDS.subjectOrBlank.optional(),
});
export type TEngagementResend = z.input<typeof ZEngagementResend>;

export const ZEngagementCount = z.object({
  count: z.number().int(),
  /** The send's tracked links with how many recipients clicked each (for "clicked a link"). */
  links: z.array(z.object({ id: z.number().int(), url: z.string(), clicked: z.number().int() })),
  /** Opens and clicks are known only when the send tracked them. */
  trackedOpens: z.boolean(),
  trackedClicks: z.boolean(),
});
export type TEngagementCount = z.infer<typeof ZEngagementCount>;
