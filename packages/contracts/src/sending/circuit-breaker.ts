import { z } from 'zod';

/**
 * The circuit breaker (issue 31 §2): a send, or a drip campaign, stops itself once its
 * hard bounces or complaints say the list is hurting the sender, before the mailbox
 * providers decide so. Gmail's and Yahoo's bulk-sender rules draw the complaint line at
 * 0.3 % of the mail delivered; a send stopped at 0.1 % leaves room to act. The figures are
 * shares of the messages handed over (accepted, refused or unknown: GLOSSARY.md
 * "recipients"), and only from 200 of them on, so five bounces among the first twenty
 * stop nothing.
 */
export const CIRCUIT_BREAKER = {
  /** Messages handed over before the breaker judges a send. */
  minAttempts: 200,
  /** The account's lines unless its settings say otherwise, in percent. */
  bouncePercent: 5,
  complaintPercent: 0.1,
} as const;

export type TBreakerLines = { bouncePercent: number; complaintPercent: number };
export type TBreakerFigures = { attempts: number; hardBounces: number; complaints: number };
export type TBreakerVerdict = {
  kind: 'bounces' | 'complaints';
  /** The share that passed its line, in percent. */
  percent: number;
  line: number;
  count: number;
  attempts: number;
};

/**
 * Whether a send's figures trip the breaker: after `minAttempts` messages, a share that
 * passes (is above) its line. Bounces are judged first: they are the commoner sign of an
 * old list. Null when the send may go on.
 */
export const breakerVerdict = (figures: TBreakerFigures, lines: TBreakerLines): TBreakerVerdict | null => {
  if (figures.attempts < CIRCUIT_BREAKER.minAttempts) return null;
  const share = (count: number) => (count * 100) / figures.attempts;
  if (share(figures.hardBounces) > lines.bouncePercent) {
    return {
      kind: 'bounces',
      percent: share(figures.hardBounces),
      line: lines.bouncePercent,
      count: figures.hardBounces,
      attempts: figures.attempts,
    };
  }
  if (share(figures.complaints) > lines.complaintPercent) {
    return {
      kind: 'complaints',
      percent: share(figures.complaints),
      line: lines.complaintPercent,
      count: figures.complaints,
      attempts: figures.attempts,
    };
  }
  return null;
};

/** A percentage as people write it: 5 %, 0.1 %, 10.5 %. */
export const formatPercent = (value: number) => `${Number(value.toFixed(value < 1 ? 2 : 1)).toLocaleString('en-US')}%`;

/**
 * What the user reads on the progress card, the campaign page, the notification and the
 * email: what passed which line, on which messages, and what to do. The title beside it says
 * it was paused (or stopped), so the reason does not say it again. `since` names the
 * messages judged: the first ones, or those since the user resumed it (judged again).
 */
export const breakerReason = (verdict: TBreakerVerdict, since: 'start' | 'resume' = 'start') => {
  const messages = `${verdict.count.toLocaleString('en-US')} of the ${since === 'start' ? 'first ' : ''}${verdict.attempts.toLocaleString('en-US')} messages${since === 'resume' ? ' since it was resumed' : ''}`;
  const advice =
    verdict.kind === 'bounces'
      ? 'The list likely holds old or mistyped addresses: verify it, or remove the bounced addresses, before you resume.'
      : 'Recipients are marking it as spam: check that they asked for it and that unsubscribing is easy before you resume.';
  return `${verdict.kind === 'bounces' ? 'Hard bounces' : 'Spam complaints'} reached ${formatPercent(verdict.percent)} (${messages}), above your account's limit of ${formatPercent(verdict.line)}. ${advice}`;
};

/** The live figures the breaker judges, for the card beside its reason (issue 45 §3). */
export const ZBreakerState = z.object({
  /** When the user resumed a send the breaker had paused: the messages since are judged again; null before any resume. */
  judged_from: z.string().nullable(),
  /** Messages handed over (accepted, refused or unknown), hard bounces and complaints, now, of those judged. */
  attempts: z.number().int(),
  hard_bounces: z.number().int(),
  complaints: z.number().int(),
});
export type TBreakerState = z.infer<typeof ZBreakerState>;

/**
 * The lines a user may set, in percent (issue 43 item 5). Above 50 % bounces or 5 %
 * complaints a breaker never trips before the providers have judged the sender (Gmail's line
 * is 0.3 % complaints); below 0.5 % bounces or 0.01 % complaints any list trips it on its
 * first few. The database holds the same ranges (`sending_accounts` checks).
 */
export const BREAKER_LIMITS = {
  bouncePercent: { min: 0.5, max: 50 },
  complaintPercent: { min: 0.01, max: 5 },
} as const;

/** The range a line must be in, as the form and its errors say it. */
export const breakerRangeText = ({ min, max }: { min: number; max: number }) =>
  `from ${formatPercent(min)} to ${formatPercent(max)}`;

/** A line in its range: a JSON number only (not `"5"`, `true` or `[5]`, which a coercion would take). */
const ZBreakerLine = (what: string, range: { min: number; max: number }) => {
  const message = `The ${what} limit must be a number ${breakerRangeText(range)}.`;
  return z.number({ message }).min(range.min, { message }).max(range.max, { message });
};

/** The account's breaker lines as its settings form sends them. */
export const ZBreakerSettings = z.object({
  breakerBouncePercent: ZBreakerLine('hard-bounce', BREAKER_LIMITS.bouncePercent),
  breakerComplaintPercent: ZBreakerLine('complaint', BREAKER_LIMITS.complaintPercent),
});
export type TBreakerSettings = z.infer<typeof ZBreakerSettings>;
