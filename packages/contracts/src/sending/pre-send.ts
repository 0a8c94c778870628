import { z } from 'zod';
import { userHtml } from '../html/html-bounds';
import { defineRoute } from '../http/routes';
import { ZSpamTestRequest } from '../spam-test/spam-test';
import { ZSendEmailRequest } from './sending';

/**
 * The pre-send check (issue 31 §1): before Send Email's confirmation, what a receiver will
 * make of this send: the From domain's SPF, DKIM and DMARC against the account's sending path
 * and the bulk-sender rules, the spam test's own content and header checks on the composed
 * message (no engines, no mailbox, no credit), and the chosen lists. Nothing is blocked: a
 * red item asks "send anyway?".
 */
export const PRE_SEND_GROUPS = ['domain', 'message', 'lists'] as const;
export const PRE_SEND_STATUSES = ['pass', 'info', 'warn', 'fail'] as const;

/** From this many recipients a day Gmail and Yahoo treat a sender as a bulk sender: DMARC required. */
export const BULK_SENDER_DAILY = 5000;

/** A DKIM selector as DNS names allow it (the label(s) before `._domainkey.`). */
export const ZDkimSelector = z
  .string()
  .trim()
  .max(63)
  .regex(/^[A-Za-z0-9._-]*$/, { message: 'A DKIM selector holds letters, digits, dots, dashes and underscores.' });

export const ZPreSendRequest = ZSendEmailRequest.extend({
  /**
   * The DKIM selector to check; when blank, the account's own (an SMTP account's DKIM selector
   * field, or the one Mailgun's domain API reports), else Mailgun's usual ones are tried.
   */
  dkimSelector: ZDkimSelector.optional(),
});
export type TPreSendRequest = z.input<typeof ZPreSendRequest>;

export const ZPreSendItem = z.object({
  id: z.string(),
  group: z.enum(PRE_SEND_GROUPS),
  title: z.string(),
  status: z.enum(PRE_SEND_STATUSES),
  detail: z.string(),
  /** What to do about it, when something should change. */
  advice: z.string().nullable(),
});
export type TPreSendItem = z.infer<typeof ZPreSendItem>;

export const ZPreSendCheck = z.object({
  items: z.array(ZPreSendItem),
  /** The spam test's content and header score of the composed message (0 to 10). */
  messageScore: z.number(),
  /** Recipients of the chosen lists, each address once. */
  audience: z.number().int(),
  /** Whether any item is red: the confirmation asks "send anyway?". */
  hasFailures: z.boolean(),
});
export type TPreSendCheck = z.infer<typeof ZPreSendCheck>;

/** The group's heading in the checklist. */
export const PRE_SEND_GROUP_TITLES: Record<(typeof PRE_SEND_GROUPS)[number], string> = {
  domain: 'Sending domain',
  message: 'Message',
  lists: 'Lists',
};

/** The worst status of some items: what the group's line shows folded. */
export const worstStatus = (items: Pick<TPreSendItem, 'status'>[]): TPreSendItem['status'] => {
  const order = PRE_SEND_STATUSES;
  return items.reduce<TPreSendItem['status']>(
    (worst, item) => (order.indexOf(item.status) > order.indexOf(worst) ? item.status : worst),
    'pass',
  );
};

/**
 * The highest content score of a message with a red finding (issue 45 §1): the lowest band
 * ("Likely spam", a red Content score), so a phishing-like link or an image-only body never
 * sits under a score that reads Good. The points alone are the spam test's.
 */
export const RED_FINDING_CEILING = 4.9;

/** A message's score as the checklist shows it: its points, held under the red line while a finding is red. */
export const messageScoreOf = (score: number, findings: Pick<TPreSendItem, 'status'>[]) =>
  findings.some((finding) => finding.status === 'fail') ? Math.min(score, RED_FINDING_CEILING) : score;

/** The spam-test form's check (issue 31 §1): its sender and message, no lists (it goes to one test address). */
export const ZSpamTestPreSendRequest = ZSpamTestRequest.extend({ dkimSelector: ZDkimSelector.optional() });
export type TSpamTestPreSendRequest = z.input<typeof ZSpamTestPreSendRequest>;

/** A drip campaign's check before it starts (the wizard's Finish): the draft by its temporary key. */
export const ZCampaignPreSendRequest = z.object({ temporary: z.string().min(1).max(100) });

/** History's Send again (issue 45 §4): the old send by its account and id, as `/history/resend` takes it. */
export const ZResendPreSendRequest = z.object({
  accountId: z.coerce.number().int().positive(),
  id: z.coerce.number().int().positive(),
});

/**
 * The message's own checks beside the editor as a user writes (issue 46 §3): the spam test's
 * content and header checks on the message composed as the engine composes it, from the
 * user's own address; no DNS, no lists, no credit.
 */
export const ZMessageCheckRequest = z.object({
  subject: z.string().max(998).default(''),
  html: userHtml(2_000_000),
});
export type TMessageCheckRequest = z.input<typeof ZMessageCheckRequest>;
export const ZMessageCheck = z.object({ items: z.array(ZPreSendItem), messageScore: z.number() });
export type TMessageCheck = z.infer<typeof ZMessageCheck>;

/** The pre-send check of the spam-test form, a drip campaign's start and Send again (paths of ours beside theirs). */
export const preSendApi = {
  /** The editor's message checks (a path of ours). */
  messageCheck: defineRoute({
    method: 'POST',
    path: '/email/message-check',
    body: ZMessageCheckRequest,
    response: ZMessageCheck,
  }),
  resend: defineRoute({
    method: 'POST',
    path: '/history/resend/pre-send-check',
    body: ZResendPreSendRequest,
    response: ZPreSendCheck,
  }),
  spamTest: defineRoute({
    method: 'POST',
    path: '/tools/mail-testing/pre-send-check',
    body: ZSpamTestPreSendRequest,
    response: ZPreSendCheck,
  }),
  campaignStart: defineRoute({
    method: 'POST',
    path: '/campaigns/pre-send-check',
    body: ZCampaignPreSendRequest,
    response: ZPreSendCheck,
  }),
};
