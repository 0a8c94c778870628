import { z } from 'zod';
import { userHtml } from '../html/html-bounds';
import { ZStatusMessage } from '../http/errors';
import { defineRoute, ZIdParams } from '../http/routes';
import { pagedResponse, pageQuery } from '../paging/paging';
import { SEND_MESSAGES, ZSendEmailRequest, ZTemplate } from '../sending/sending';

/**
 * Spec §9: a spam test costs 100 credits by default (the server's `SPAM_TEST_CREDITS`); the
 * Test button is shown only from that many usable credits. Screens read the configured price
 * from the server (`spamTestCredits` of the Send Email content), never this constant.
 */
export const SPAM_TEST_CREDITS = 100;
/** Spec §9: the page polls every 15 s, at most 4 times, then offers the history. */
export const SPAM_TEST_POLL_MS = 15_000;
export const SPAM_TEST_POLLS = 4;

export const SPAM_TEST_MESSAGES = {
  waiting: 'Please wait, the test mailing process will be completed shortly.',
  slowTitle: 'Attention: This process may take up to 5 minutes',
  slowBody:
    'Your test email has not reached the test mailbox yet. The result appears in the test history as soon as it arrives; if it never arrives, the credits come back.',
  sent: 'Your test email is on its way to the test mailbox.',
  tooManyTitle: 'Wait for your tests to finish',
  noCreditsTitle: 'Not enough credits',
  saved: 'Your template has been saved.',
} as const;

/** What a spam test is doing: sent, arrived (being scored), scored, or never arrived (refunded). */
export const SPAM_TEST_STATUSES = ['waiting', 'received', 'scored', 'failed'] as const;
export type TSpamTestStatus = (typeof SPAM_TEST_STATUSES)[number];

export const CHECK_STATUSES = ['pass', 'info', 'warn', 'fail'] as const;
export const CHECK_CATEGORIES = ['authentication', 'content', 'headers', 'blocklists', 'engines'] as const;

/** One finding of the analysis: what was checked, what came out, what it cost, and what to do. */
export const ZSpamCheck = z.object({
  id: z.string(),
  category: z.enum(CHECK_CATEGORIES),
  title: z.string(),
  status: z.enum(CHECK_STATUSES),
  /** Points taken off the 10. */
  penalty: z.number(),
  detail: z.string(),
  /** What to change, when something should change. */
  advice: z.string().nullable(),
});
export type TSpamCheck = z.infer<typeof ZSpamCheck>;

/** Why an engine did or did not judge a message: it scored, could not be reached, took too long, or is off. */
export const SPAM_ENGINE_STATUSES = ['scored', 'unreachable', 'timeout', 'off'] as const;

/** A content engine (rspamd, SpamAssassin) and what it said, or why it did not score. */
export const ZSpamEngine = z.object({
  name: z.string(),
  status: z.enum(SPAM_ENGINE_STATUSES),
  score: z.number().nullable(),
  /** Where the engine's scale says spam (SpamAssassin's required score, rspamd's "add header"). */
  threshold: z.number().nullable(),
  detail: z.string(),
  rules: z.array(z.object({ name: z.string(), score: z.number(), description: z.string() })),
  /** What the engine would do with the message: rspamd's action, SpamAssassin's "spam" or "no action". */
  action: z.string().nullable().optional(),
  /** Its score without its own SPF, DKIM, DMARC and ARC rules: Sendwell's checks count those faults once. */
  contentScore: z.number().nullable().optional(),
  /** Whether that content judgement (or a verdict the engine forces, as for GTUBE) calls the message spam. */
  isSpam: z.boolean().optional(),
  /** A verdict the engine reached before scoring (rspamd: GTUBE, a forced action); `contentScore` then stands for it. */
  isForced: z.boolean().optional(),
});
export type TSpamEngine = z.infer<typeof ZSpamEngine>;

export const ZSpamReport = z.object({
  /** Out of 10, one decimal. */
  score: z.number(),
  verdict: z.string(),
  checks: z.array(ZSpamCheck),
  engines: z.array(ZSpamEngine),
  /** The Authentication-Results header a receiver would add. */
  authenticationResults: z.string(),
  /** The From domain, the envelope sender, and the sending server as the mailbox saw them. */
  fromDomain: z.string(),
  envelopeFrom: z.string(),
  remoteIp: z.string(),
  sizeBytes: z.number().int(),
  analysedAt: z.string(),
});
export type TSpamReport = z.infer<typeof ZSpamReport>;

/** The words a score is read with (mail-tester's scale: 10 is perfect), best first. */
export const SPAM_SCORE_BANDS = ['Excellent', 'Good', 'Needs work', 'Likely spam'] as const;
export type TSpamScoreBand = (typeof SPAM_SCORE_BANDS)[number];

/**
 * A score's band: 9 and up Excellent, 7 Good, 5 Needs work, below 5 Likely spam. A message a
 * content engine calls spam on what Sendwell's own findings do not count (each fault counts
 * once) is always in the last band (the analysis caps it below 5).
 */
export const scoreVerdict = (score: number): TSpamScoreBand =>
  score >= 9 ? 'Excellent' : score >= 7 ? 'Good' : score >= 5 ? 'Needs work' : 'Likely spam';

/** A score as the pages show it: one decimal, so a 0.3 penalty is never rounded into a tie. */
export const formatSpamScore = (score: number) => score.toFixed(1);

export const ZSpamTest = z.object({
  id: z.number().int(),
  status: z.enum(SPAM_TEST_STATUSES),
  address: z.string(),
  account_id: z.number().int().nullable(),
  account_name: z.string().nullable(),
  from: z.string(),
  subject: z.string(),
  score: z.number().nullable(),
  error: z.string().nullable(),
  credits_charged: z.number().int(),
  credits_refunded: z.number().int(),
  created_at: z.string(),
  received_at: z.string().nullable(),
  scored_at: z.string().nullable(),
});
export type TSpamTest = z.infer<typeof ZSpamTest>;

export const ZSpamTestResult = ZSpamTest.extend({
  html: z.string(),
  report: ZSpamReport.nullable(),
  /** The headers of the message as it arrived (the raw message is a download). */
  headers: z.string().nullable(),
});
export type TSpamTestResult = z.infer<typeof ZSpamTestResult>;

/**
 * Spec §7 `POST /tools/mail-testing/send` (form: account, from, mail_body, subject). The
 * sender is given as the Send Email form gives it: `from` alone (the spec's form), or
 * its parts (`senderName`, `alias`, `useSubdomain`).
 */
export const ZSpamTestRequest = ZSendEmailRequest.pick({
  account: true,
  from: true,
  senderName: true,
  alias: true,
  useSubdomain: true,
  subject: true,
}).extend({
  mail_body: userHtml(2_000_000).refine((value) => value.trim() !== '', { message: SEND_MESSAGES.messageRequired }),
});
export type TSpamTestRequest = z.input<typeof ZSpamTestRequest>;

/**
 * The spec's ERR_LIMIT dialog (§8): title, texts and colours from the server. On confirm, a
 * test mail's `link` opens in a new tab; a verification's `url` is where the browser goes.
 */
export const ZLimitDialog = z.object({
  title: z.string(),
  message: z.string(),
  confirmButtonText: z.string(),
  cancelButtonText: z.string(),
  confirmButtonColor: z.string(),
  cancelButtonColor: z.string(),
  link: z.string().nullable(),
  url: z.string().nullable().optional(),
});
export type TLimitDialog = z.infer<typeof ZLimitDialog>;

export const spamTestApi = {
  send: defineRoute({
    method: 'POST',
    path: '/tools/mail-testing/send',
    body: ZSpamTestRequest,
    response: ZStatusMessage.extend({
      code: z.string(),
      /** `mail`: the test's id; `to`: the test mailbox address the message went to. */
      data: z.object({ mail: z.number().int(), to: z.string() }),
    }),
  }),
  result: defineRoute({
    method: 'GET',
    path: '/tools/mail-testing/result/:id',
    params: ZIdParams,
    response: z.object({ status: z.boolean(), data: ZSpamTestResult }),
  }),
  /** Spec §7: the result is recorded; here the server scored it itself, so this confirms it and names the page. */
  postResult: defineRoute({
    method: 'POST',
    path: '/tools/mail-testing/post-result',
    body: z.object({
      sentRecord: z.coerce.number().int().positive(),
      allData: z.unknown().optional(),
      preview: z.boolean().optional(),
    }),
    response: ZStatusMessage.extend({ id: z.number().int(), preview: z.boolean() }),
  }),
  saveAsTemplate: defineRoute({
    method: 'POST',
    path: '/tools/mail-testing/save-as-template',
    body: z.object({
      name: z.string().trim().min(1, { message: SEND_MESSAGES.templateNameRequired }).max(120),
      sent_id: z.coerce.number().int().positive(),
    }),
    response: ZStatusMessage.extend({ data: ZTemplate }),
  }),
  history: defineRoute({
    method: 'GET',
    path: '/tools/mail-testing/history',
    query: pageQuery({ columns: ['created_at', 'score'], defaultColumn: 'created_at', defaultOrder: 'desc' }),
    response: pagedResponse(ZSpamTest),
  }),
  /** The message exactly as the test mailbox received it (`.eml`). */
  raw: defineRoute({
    method: 'GET',
    path: '/tools/mail-testing/history/:id/raw',
    params: ZIdParams,
    response: z.string(),
  }),
};
