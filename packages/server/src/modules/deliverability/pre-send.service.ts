import {
  abPartLetter,
  abSubjectsOf,
  audienceHealthItems,
  messageScoreOf,
  type TAudienceFacts,
  type TMessageCheck,
  type TPreSendCheck,
  type TPreSendItem,
  type TSpamCheck,
  type ZPreSendRequest,
  type ZSpamTestPreSendRequest,
} from '@sendwell/contracts';
import type { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import { findAccountRow, requireAccountRow } from '../accounts/accounts.service';
import { findUserProfile } from '../auth/auth.service';
import { campaignStartFacts } from '../campaigns/campaigns.service';
import { composeSample, MessageComposeError, recentListFigures } from '../delivery/delivery.service';
import { audienceFacts } from '../lists/lists.service';
import { resendContentOf } from '../send-email/scheduled.service';
import { checkSendForm, resolveSender } from '../send-email/send-email.service';
import { checkComposedMessage } from '../spam-test/spam-test.service';
import { checkResolver, recordResolverHealth } from '../system/resolver-health.service';
import { verdictOf } from '../verification/verification.service';
import { createCachingResolver, type TCachingResolver } from './dns-cache';
import { dkimOutcome, dmarcItems, domainItem, isTestInbox, spfOutcome, type TAccount } from './domain-items';

/**
 * The pre-send check (issue 31 §1): what a receiver will make of a send before the user
 * confirms it, in three groups, each item with what to do. Nothing here blocks a send; red
 * items make the confirmation ask "send anyway?". Costs nothing: DNS (cached by TTL), the
 * spam test's own content checks on the composed message, and grouped reads of the lists.
 * The sending domain's items are `domain-items.ts`; an audience's are contracts' one rule
 * (`audienceHealthItems`).
 */

export type TPreSendForm = z.output<typeof ZPreSendRequest>;

/** How far back "recent sends to these lists" look. */
const RECENT_DAYS = 90;

const item = (
  group: TPreSendItem['group'],
  id: string,
  title: string,
  status: TPreSendItem['status'],
  detail: string,
  advice: string | null = null,
): TPreSendItem => ({ id, group, title, status, detail, advice });

const resolvers = new WeakMap<TPlatform, TCachingResolver>();
/** One caching resolver per process (a platform stands for one). */
export const preSendResolver = (platform: TPlatform) => {
  const known = resolvers.get(platform);
  if (known) return known;
  const created = createCachingResolver(platform.config.spamTest.dnsServers);
  resolvers.set(platform, created);
  return created;
};

/** A DNS failure (a timeout, a server refusing) says so instead of failing the whole check. */
const orUnknown = async <T>(
  id: string,
  title: string,
  work: () => Promise<T>,
  unknown: (entry: TPreSendItem) => T,
): Promise<T> => {
  try {
    return await work();
  } catch (error) {
    return unknown(
      domainItem(
        id,
        title,
        'warn',
        `The DNS did not answer (${(error as Error).message}), so this was not checked.`,
        'Try the check again in a moment.',
      ),
    );
  }
};

/**
 * Whether the resolver finds the names that must exist (R48), asked through the check's own
 * cache and recorded for the operator's System page. The test inbox asks no DNS.
 */
const resolverHealth = async (platform: TPlatform, resolve: TCachingResolver['resolve'], account: TAccount) => {
  if (isTestInbox(account)) return { isBroken: false } as const;
  const health = await checkResolver(
    async (name) => (await resolve(name, 'MX')) as unknown[],
    platform.config.dnsCanaries,
  );
  await recordResolverHealth(platform.db, 'pre-send', platform.config.spamTest.dnsServers, health);
  return health;
};

/** A domain item the broken resolver cannot answer for: said so, never a verdict on its word. */
const notCheckable = (entry: TPreSendItem, detail: string): TPreSendItem =>
  domainItem(
    entry.id,
    entry.title,
    'warn',
    `Not checked: ${detail} This server's DNS answers cannot be trusted now.`,
    'Try the check again later; the operator has been told.',
  );

/** The sending domain's items: SPF on the engine's envelope, DKIM, and DMARC on both, as a receiver decides. */
const domainItems = async (
  platform: TPlatform,
  input: { account: TAccount; fromAddress: string; audience: number; dkimSelector: string | undefined },
) => {
  const { resolve } = preSendResolver(platform);
  const [resolver, spf, dkim] = await Promise.all([
    resolverHealth(platform, resolve, input.account),
    orUnknown(
      'spf',
      'SPF',
      () => spfOutcome(platform, resolve, input.account, input.fromAddress),
      (entry) => ({ item: entry, passes: null }),
    ),
    orUnknown(
      'dkim',
      'DKIM',
      () => dkimOutcome(platform, resolve, input.account, input.fromAddress, input.dkimSelector),
      (entry) => ({ item: entry, signs: null, domain: '' }),
    ),
  ]);
  const dmarc = await orUnknown(
    'dmarc',
    'DMARC',
    () => dmarcItems(platform, resolve, { ...input, spf, dkim }),
    (entry) => [entry],
  );
  const items = [spf.item, dkim.item, ...dmarc];
  // A resolver that does not find names that must exist says nothing about this domain (R48).
  return resolver.isBroken ? items.map((entry) => notCheckable(entry, resolver.detail)) : items;
};

const messageItem = (finding: TSpamCheck): TPreSendItem =>
  item('message', `message-${finding.id}`, finding.title, finding.status, finding.detail, finding.advice);

/**
 * A send's lists: their addresses once (unverified, known-bad, role), and what sends to these
 * lists did in the last RECENT_DAYS days, judged by contracts' one rule against the account's
 * breaker lines.
 */
const listItems = async (platform: TPlatform, userId: number, account: TAccount, listIds: number[]) => {
  const [facts, recent] = await Promise.all([
    audienceFacts(platform.db, userId, listIds, platform.config.genericEmails, (address) => verdictOf(userId, address)),
    recentListFigures(platform.db, userId, listIds, RECENT_DAYS),
  ]);
  const audience: TAudienceFacts = {
    ...facts,
    recent: {
      days: RECENT_DAYS,
      sends: recent.sends,
      messages: recent.attempts,
      hardBounces: recent.hard_bounces,
      complaints: recent.complaints,
    },
  };
  const lines = { bouncePercent: account.breaker_bounce_percent, complaintPercent: account.breaker_complaint_percent };
  return { items: audienceHealthItems(audience, lines), audience: facts.recipients };
};

type TCheckedMessage = {
  /** "Email #2" for a campaign's emails; null for the one message of a send or a spam test. */
  label: string | null;
  subject: string;
  html: string;
  replyTo: string;
  trackOpens: boolean;
  trackClicks: boolean;
};

/** One message's group items: its content score and the spam test's own checks, named after it when there are several. */
const messageItems = async (
  platform: TPlatform,
  userId: number,
  sender: { fromName: string; fromAddress: string },
  message: TCheckedMessage,
) => {
  const prefix = message.label ? `${message.label}: ` : '';
  const idPrefix = message.label ? `${message.label.toLowerCase().replace(/\W+/g, '-')}-` : '';
  let raw: Buffer;
  try {
    raw = await composeSample(platform, {
      userId,
      fromName: sender.fromName,
      fromAddress: sender.fromAddress,
      subject: message.subject,
      html: message.html,
      replyTo: message.replyTo,
      trackOpens: message.trackOpens,
      trackClicks: message.trackClicks,
    });
  } catch (error) {
    // HTML the engine cannot compose (a drip step stored before the bounds of R40, or past a
    // CPU thread's time) would fail its send: the check says so instead of scoring it.
    if (!(error instanceof MessageComposeError)) throw error;
    const items = [
      item(
        'message',
        `${idPrefix}message-score`,
        `${prefix}Content score`,
        'fail',
        `This email could not be composed: ${error.message}`,
        'Change the message; a send of it would fail.',
      ),
    ];
    return { items, score: 0 };
  }
  const content = await checkComposedMessage(platform, raw);
  // A red finding keeps the score under the red line: a phishing-like link never sits under "Good".
  const score = messageScoreOf(content.score, content.checks);
  const isHeld = score < content.score;
  const items = [
    item(
      'message',
      `${idPrefix}message-score`,
      `${prefix}Content score`,
      score >= 8 ? 'pass' : score >= 5 ? 'warn' : 'fail',
      isHeld
        ? `The spam test's own content and header checks give ${message.label ? `“${message.subject}”` : 'this message'} ${score} of 10: its points come to ${content.score}, but a finding below is red, and one such fault is enough for filters to act.`
        : `The spam test's own content and header checks give ${message.label ? `“${message.subject}”` : 'this message'} ${score} of 10 (${content.verdict}).`,
      score >= 8 ? null : 'See the items below; a full spam test also asks the filters and checks the signatures.',
    ),
    ...content.checks
      // A campaign's emails show what to change; the ones that passed would repeat per email.
      .filter((finding) => !message.label || finding.status !== 'pass')
      .map((finding) => ({
        ...messageItem(finding),
        id: `${idPrefix}message-${finding.id}`,
        title: `${prefix}${finding.title}`,
      })),
  ];
  return { items, score };
};

/**
 * The checklist itself, whatever asks (Send Email, the spam-test form, a drip campaign's
 * start): the sending domain against the account, each message composed as the engine
 * composes it, and the audience's own items (a send's lists, a campaign's recipients).
 */
const runCheck = async (
  platform: TPlatform,
  userId: number,
  input: {
    account: TAccount;
    fromName: string;
    fromAddress: string;
    messages: TCheckedMessage[];
    audience: number;
    audienceItems: TPreSendItem[];
    dkimSelector: string | undefined;
  },
): Promise<TPreSendCheck> => {
  const [domain, contents] = await Promise.all([
    domainItems(platform, input),
    Promise.all(input.messages.map((message) => messageItems(platform, userId, input, message))),
  ]);
  const items = [...domain, ...contents.flatMap((content) => content.items), ...input.audienceItems];
  return {
    items,
    messageScore: contents.length === 0 ? 10 : Math.min(...contents.map((content) => content.score)),
    audience: input.audience,
    hasFailures: items.some((entry) => entry.status === 'fail'),
  };
};

/** `POST /api/email/pre-send-check`: the checklist for a Send Email form as it would be sent. */
export const preSendCheck = async (platform: TPlatform, userId: number, form: TPreSendForm): Promise<TPreSendCheck> => {
  const sender = await checkSendForm(platform, userId, form);
  const account = (await findAccountRow(platform.db, userId, sender.accountId))!;
  const lists = await listItems(
    platform,
    userId,
    account,
    sender.lists.map((list) => list.id),
  );
  return runCheck(platform, userId, {
    account,
    fromName: sender.fromName,
    fromAddress: sender.fromAddress,
    // An A/B test's subjects are checked each (a subject is part of the content score).
    messages: (form.abTest ? abSubjectsOf(form) : [form.subject]).map((subject, index, subjects) => ({
      label: subjects.length > 1 ? `Subject ${abPartLetter(index + 1)}` : null,
      subject,
      html: form.message,
      replyTo: form.reply,
      trackOpens: form.trackOpens,
      trackClicks: form.trackClicks,
    })),
    audience: lists.audience,
    audienceItems: lists.items,
    dkimSelector: form.dkimSelector || undefined,
  });
};

/**
 * `POST /api/history/resend/pre-send-check`: History's Send again checked as Send Email's
 * confirmation checks a send (issue 45 §4), on the content Send again will send
 * (`resendContentOf`): its account, sender, lists and message.
 */
export const resendPreSendCheck = async (
  platform: TPlatform,
  userId: number,
  accountId: number,
  id: number,
): Promise<TPreSendCheck> => {
  const content = await resendContentOf(platform, userId, accountId, id);
  const account = await requireAccountRow(platform.db, userId, accountId);
  const lists = await listItems(platform, userId, account, content.listIds);
  return runCheck(platform, userId, {
    account,
    fromName: content.fromName,
    fromAddress: content.fromAddress,
    messages: [
      {
        label: null,
        subject: content.subject,
        html: content.html,
        replyTo: content.replyTo,
        trackOpens: content.trackOpens,
        trackClicks: content.trackClicks,
      },
    ],
    audience: lists.audience,
    audienceItems: lists.items,
    dkimSelector: undefined,
  });
};

/**
 * `POST /api/tools/mail-testing/pre-send-check`: the spam-test form's check: the sending domain
 * and the message, checked the way the spam test sends it (tracking as a send has it); no lists.
 */
export const spamTestPreSendCheck = async (
  platform: TPlatform,
  userId: number,
  form: z.output<typeof ZSpamTestPreSendRequest>,
): Promise<TPreSendCheck> => {
  const sender = await resolveSender(platform, userId, form);
  return runCheck(platform, userId, {
    account: sender.account,
    fromName: sender.fromName,
    fromAddress: sender.fromAddress,
    messages: [
      { label: null, subject: form.subject, html: form.mail_body, replyTo: '', trackOpens: true, trackClicks: true },
    ],
    audience: 1,
    audienceItems: [],
    dkimSelector: form.dkimSelector || undefined,
  });
};

/**
 * `POST /api/campaigns/pre-send-check`: a drip campaign's check before it starts (the wizard's
 * Finish): the sending domain, each of its emails, and its recipients (role addresses, and
 * suppressed ones, who start stopped).
 */
export const campaignPreSendCheck = async (
  platform: TPlatform,
  userId: number,
  key: string,
): Promise<TPreSendCheck> => {
  const facts = await campaignStartFacts(platform, userId, key);
  const account = await requireAccountRow(platform.db, userId, facts.accountId);
  return runCheck(platform, userId, {
    account,
    fromName: facts.fromName,
    fromAddress: facts.fromAddress,
    messages: facts.emails.map((email) => ({
      label: facts.emails.length > 1 ? `Email #${email.position}` : null,
      subject: email.subject,
      html: email.html,
      replyTo: email.replyTo,
      trackOpens: facts.trackOpens,
      trackClicks: facts.trackClicks,
    })),
    audience: facts.recipients.recipients,
    // The same rule as a send's lists; a drip campaign stops recipients found invalid rather than sending to them.
    audienceItems: audienceHealthItems(
      { ...facts.recipients, skipsInvalid: true },
      { bouncePercent: account.breaker_bounce_percent, complaintPercent: account.breaker_complaint_percent },
      "the offer on the wizard's Recipients step",
    ),
    dkimSelector: undefined,
  });
};

/**
 * `POST /api/email/message-check`: the message's own items beside the editor (issue 46 §3),
 * composed from the user's own address as the engine composes it; no DNS and no lists, so it
 * answers in the time of one composition while the user types.
 */
export const messageCheck = async (
  platform: TPlatform,
  userId: number,
  input: { subject: string; html: string },
): Promise<TMessageCheck> => {
  const user = await findUserProfile(platform.db, userId);
  const { items, score } = await messageItems(
    platform,
    userId,
    { fromName: user?.name ?? '', fromAddress: user?.email ?? 'sender@example.com' },
    {
      label: null,
      subject: input.subject || '(no subject)',
      html: input.html,
      replyTo: '',
      trackOpens: true,
      trackClicks: true,
    },
  );
  return { items, messageScore: score };
};
