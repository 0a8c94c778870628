import { z } from 'zod';
import { pagedResponse, pageQuery } from '../paging/paging';

/** Spec §5: subject 3 to 500 characters; a message or response at least 3. */
export const TICKET_LIMITS = { subjectMin: 3, subjectMax: 500, messageMin: 3, messageMax: 20_000 } as const;

export const TICKET_MESSAGES = {
  subject: `The subject must be ${TICKET_LIMITS.subjectMin} to ${TICKET_LIMITS.subjectMax} characters.`,
  message: `The message must be at least ${TICKET_LIMITS.messageMin} characters.`,
  created: 'Your ticket was created. We will answer you here and by email.',
  sent: 'Your message was sent.',
  closed: 'This ticket is closed.',
} as const;

const subject = z
  .string()
  .trim()
  .min(TICKET_LIMITS.subjectMin, TICKET_MESSAGES.subject)
  .max(TICKET_LIMITS.subjectMax, TICKET_MESSAGES.subject);
const message = z
  .string()
  .trim()
  .min(TICKET_LIMITS.messageMin, TICKET_MESSAGES.message)
  .max(
    TICKET_LIMITS.messageMax,
    `A message may hold at most ${TICKET_LIMITS.messageMax.toLocaleString('en-US')} characters.`,
  );

/** One message of a ticket, as the spec's ticket service answers it. */
export const ZTicketMessage = z.object({
  from: z.enum(['user', 'operator']),
  message: z.string(),
  date_created: z.string(),
});

/** Spec §3 "Support ticket". */
export const ZTicket = z.object({
  id: z.number().int(),
  subject: z.string(),
  date_created: z.string(),
  date_last_response: z.string(),
  date_closed: z.string().nullable(),
  active: z.boolean(),
  read: z.boolean(),
  email: z.string(),
});
export type TTicket = z.infer<typeof ZTicket>;

export const ZTicketDetails = ZTicket.extend({ messages: z.array(ZTicketMessage) });
export type TTicketDetails = z.infer<typeof ZTicketDetails>;

export const ZNewTicket = z.object({ subject, message });
export type TNewTicket = z.infer<typeof ZNewTicket>;
export const ZTicketResponse = z.object({ message });
export type TTicketResponse = z.infer<typeof ZTicketResponse>;

/** The ticket service's create call (spec §7): the user is named by email. */
export const ZServiceNewTicket = ZNewTicket.extend({ email: z.string().trim().email().max(320) });

export const ZTicketPageQuery = pageQuery({
  columns: ['date_last_response', 'date_created', 'subject'],
  defaultColumn: 'date_last_response',
  defaultOrder: 'desc',
});
export const ZTicketPage = pagedResponse(ZTicket).extend({ unread: z.number().int() });
export type TTicketPage = z.infer<typeof ZTicketPage>;

/** An operator-written announcement; the modal shows the latest published one. */
export const ZAnnouncement = z.object({
  id: z.number().int(),
  title: z.string(),
  body: z.string(),
  published_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type TAnnouncement = z.infer<typeof ZAnnouncement>;

/** Spec §4 and §9: the modal shows again a week after it was dismissed. */
export const ANNOUNCEMENT_AGAIN_AFTER_MS = 7 * 24 * 3600 * 1000;
export const ANNOUNCEMENT_STORAGE_KEY = 'announcement_dismissed';

/**
 * Whether the announcement modal opens by itself: never dismissed, dismissed for another
 * announcement, or dismissed more than a week ago (spec §4).
 */
export const shouldShowAnnouncement = (
  announcementId: number,
  dismissed: { id: number; at: number } | null,
  now: number,
) => !dismissed || dismissed.id !== announcementId || now - dismissed.at > ANNOUNCEMENT_AGAIN_AFTER_MS;
