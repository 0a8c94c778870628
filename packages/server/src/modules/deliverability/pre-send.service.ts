import {
  abPartLetter,
  abSubjectsOf,
  BULK_SENDER_DAILY,
  type TMessageCheck,
  type TPreSendCheck,
  type TPreSendItem,
  type TSpamCheck,
  type ZPreSendRequest,
  type ZSpamTestPreSendRequest,
} from '@sendwell/contracts';
import type { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import { notFound } from '../../platform/errors';
import { accountDkimSelector, findAccountRow } from '../accounts/accounts.service';
import { findUserProfile } from '../auth/auth.service';
import { campaignStartFacts } from '../campaigns/campaigns.service';
import { composeSample, MessageComposeError, recentListFigures } from '../delivery/delivery.service';
import { audienceFacts } from '../lists/lists.service';
import { checkSendForm, resolveSender } from '../send-email/send-email.service';
import { checkComposedMessage } from '../spam-test/spam-test.service';
import { checkResolver, recordResolverHealth } from '../system/resolver-health.service';
import { createCachingResolver, type TCachingResolver } from './dns-cache';

/**
 * The pre-send check (issue 31 §1): what a receiver will make of a send before the user
 * confirms it, in three groups, each item with what to do. Nothing here blocks a send; red
 * items make the confirmation ask "send anyway?". Costs nothing: DNS (cached by TTL), the
 * spam test's own content checks on the composed message, and grouped reads of the lists.
 */

export type TPreSendForm = z.output<typeof ZPreSendRequest>;
type TAccount = NonNullable<Awaited<ReturnType<typeof findAccountRow>>>;

/** How far back "recent sends to these lists" look. */
const RECENT_DAYS = 90;
/** Selectors Mailgun gives a domain's DKIM key, tried when the user names none. */
const MAILGUN_SELECTORS = ['mx', 'k1', 'smtp', 'krs', 'pic', 'mailo', 'email'];
const MAILGUN_INCLUDES = ['include:mailgun.org', 'include:eu.mailgun.org'];

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

const percent = (part: number, whole: number) => (whole === 0 ? 0 : (part * 100) / whole);
const shown = (value: number) => `${Number(value.toFixed(value < 1 ? 2 : 1))}%`;

/** The TXT records of a name joined as receivers read them; none when the name has none or does not exist. */
const txtOf = async (resolve: TCachingResolver['resolve'], name: string) => {
  try {
    return ((await resolve(name, 'TXT')) as string[][]).map((chunks) => chunks.join(''));
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ENOTFOUND' || code === 'ENODATA') return [];
    throw error;
  }
};

const isTestInbox = (account: TAccount) => account.driver === 'test-inbox';

const spfItem = async (
  resolve: TCachingResolver['resolve'],
  account: TAccount,
  fromAddress: string,
): Promise<TPreSendItem> => {
  const title = 'SPF';
  if (isTestInbox(account)) {
    return item(
      'domain',
      'spf',
      title,
      'info',
      'The test inbox keeps messages on this server: no receiver checks SPF.',
    );
  }
  if (account.provider === 'mailgun') {
    // Mailgun's envelope sender is at the account's domain: that is where SPF is read.
    const domain = account.domain ?? '';
    const records = (await txtOf(resolve, domain)).filter((record) => /^v=spf1\b/i.test(record));
    if (records.length === 0) {
      return item(
        'domain',
        'spf',
        title,
        'fail',
        `${domain} publishes no SPF record, so receivers cannot tell Mailgun may send for it.`,
        `Add the TXT record "v=spf1 include:mailgun.org ~all" to ${domain} (Mailgun's domain settings list it).`,
      );
    }
    const isIncluded = records.some((record) =>
      MAILGUN_INCLUDES.some((include) => record.toLowerCase().split(/\s+/).includes(include)),
    );
    return isIncluded
      ? item('domain', 'spf', title, 'pass', `${domain}'s SPF record allows Mailgun (${records[0]}).`)
      : item(
          'domain',
          'spf',
          title,
          'fail',
          `${domain}'s SPF record does not include Mailgun: ${records[0]}`,
          `Add include:mailgun.org to the record (before its all).`,
        );
  }
  // An SMTP server: does the From domain's SPF allow the server's own address?
  const host = account.host ?? '';
  let addresses: string[] = [];
  try {
    addresses = (await resolve(host, 'A')) as string[];
  } catch {
    addresses = /^\d+\.\d+\.\d+\.\d+$/.test(host) ? [host] : [];
  }
  if (addresses.length === 0) {
    return item(
      'domain',
      'spf',
      title,
      'warn',
      `The address of ${host} could not be looked up, so SPF was not checked.`,
    );
  }
  // Loaded with the first check, not at start (spam-test/analysis.ts says why).
  const { spf } = await import('mailauth/lib/spf/index.js');
  const result = (await spf({
    sender: fromAddress,
    ip: addresses[0]!,
    helo: host,
    mta: 'sendwell.local',
    resolver: resolve as never,
  })) as { status: { result: string }; info?: string };
  const domain = fromAddress.split('@')[1] ?? '';
  switch (result.status.result) {
    case 'pass':
      return item('domain', 'spf', title, 'pass', `${domain}'s SPF record allows ${host} (${addresses[0]}).`);
    case 'none':
      return item(
        'domain',
        'spf',
        title,
        'fail',
        `${domain} publishes no SPF record.`,
        `Add a TXT record to ${domain} that allows ${host}, e.g. "v=spf1 ip4:${addresses[0]} ~all", or your provider's include.`,
      );
    case 'fail':
      return item(
        'domain',
        'spf',
        title,
        'fail',
        `${domain}'s SPF record does not allow ${host} (${addresses[0]}): receivers treat the mail as forged.`,
        `Add ${host}'s address or your provider's include to the record.`,
      );
    case 'softfail':
    case 'neutral':
      return item(
        'domain',
        'spf',
        title,
        'warn',
        `${domain}'s SPF record does not list ${host} (${addresses[0]}) (${result.status.result}).`,
        `Add ${host}'s address or your provider's include to the record.`,
      );
    default:
      return item(
        'domain',
        'spf',
        title,
        'warn',
        `${domain}'s SPF record could not be evaluated (${result.status.result}).`,
        'Check the record for syntax errors and for more than 10 DNS lookups.',
      );
  }
};

const dkimItem = async (
  platform: TPlatform,
  resolve: TCachingResolver['resolve'],
  account: TAccount,
  fromAddress: string,
  asked: string | undefined,
): Promise<TPreSendItem> => {
  const title = 'DKIM';
  if (isTestInbox(account)) {
    return item('domain', 'dkim', title, 'info', 'The test inbox keeps messages on this server: nothing is signed.');
  }
  const domain = account.provider === 'mailgun' ? (account.domain ?? '') : (fromAddress.split('@')[1] ?? '');
  // The selector named for this check, else the account's (an SMTP account's field, or what
  // Mailgun's domain API reports), else for Mailgun its usual ones.
  const own = asked ? null : await accountDkimSelector(platform, account);
  const selector = asked || own?.selector || undefined;
  const selectors = selector ? [selector] : account.provider === 'mailgun' ? MAILGUN_SELECTORS : [];
  const whence =
    own?.source === 'mailgun'
      ? " (the selector Mailgun's domain API reports)"
      : own?.source === 'account'
        ? " (the account's DKIM selector)"
        : '';
  if (selectors.length === 0) {
    return item(
      'domain',
      'dkim',
      title,
      'info',
      `Name the DKIM selector your SMTP server signs ${domain} with to check its key.`,
      "Enter it as the account's DKIM selector on Sending Accounts: your provider shows it with the DKIM record, the part before ._domainkey.",
    );
  }
  const found = await Promise.all(
    selectors.map(async (name) => ({
      name,
      records: (await txtOf(resolve, `${name}._domainkey.${domain}`)).filter((record) => /(^|;)\s*p=/i.test(record)),
    })),
  );
  const key = found.find((entry) => entry.records.length > 0);
  if (!key) {
    return item(
      'domain',
      'dkim',
      title,
      selector ? 'fail' : 'warn',
      selector
        ? `No DKIM key at ${selector}._domainkey.${domain}${whence}.`
        : `No DKIM key was found for ${domain} under Mailgun's usual selectors${
            own?.problem ? ` (Mailgun's domain API could not be asked: ${own.problem})` : ''
          }.`,
      'Publish the DKIM record your provider gives you, then check again.',
    );
  }
  const isRevoked = key.records.every((record) => /(^|;)\s*p=\s*(;|$)/i.test(record));
  return isRevoked
    ? item('domain', 'dkim', title, 'fail', `The DKIM key at ${key.name}._domainkey.${domain} is revoked (empty p=).`)
    : item('domain', 'dkim', title, 'pass', `${domain} publishes a DKIM key under the selector ${key.name}${whence}.`);
};

/** A domain's organisational domain (tldts's public suffix list, loaded with the first check, not at every start). */
const organisationOf = async (domain: string) => (await import('tldts')).getDomain(domain) ?? domain;

const dmarcPolicyOf = async (resolve: TCachingResolver['resolve'], fromDomain: string) => {
  const org = await organisationOf(fromDomain);
  for (const domain of fromDomain === org ? [fromDomain] : [fromDomain, org]) {
    const record = (await txtOf(resolve, `_dmarc.${domain}`)).find((value) => /^v=DMARC1\b/i.test(value));
    if (record) return { record, domain, policy: /(^|;)\s*p=\s*(\w+)/i.exec(record)?.[2]?.toLowerCase() ?? 'none' };
  }
  return null;
};

const dmarcItems = async (
  resolve: TCachingResolver['resolve'],
  account: TAccount,
  fromAddress: string,
  audience: number,
): Promise<TPreSendItem[]> => {
  const fromDomain = fromAddress.split('@')[1] ?? '';
  const dmarc = await dmarcPolicyOf(resolve, fromDomain);
  const isBulk = audience >= BULK_SENDER_DAILY;
  const items: TPreSendItem[] = [];
  if (!dmarc) {
    items.push(
      item(
        'domain',
        'dmarc',
        'DMARC',
        isBulk ? 'fail' : 'warn',
        `${fromDomain} publishes no DMARC policy.`,
        `Add a TXT record at _dmarc.${fromDomain}, e.g. "v=DMARC1; p=none; rua=mailto:dmarc@${fromDomain}", then tighten it.`,
      ),
    );
  } else {
    const orgFrom = await organisationOf(fromDomain);
    const envelope = account.provider === 'mailgun' ? (account.domain ?? '') : fromDomain;
    const isAligned = (await organisationOf(envelope)) === orgFrom;
    items.push(
      item(
        'domain',
        'dmarc',
        'DMARC',
        isAligned ? 'pass' : 'warn',
        `${dmarc.domain} publishes DMARC with policy ${dmarc.policy}${
          dmarc.policy === 'none' ? ' (reports only: receivers act on nothing)' : ''
        }; ${
          isAligned
            ? `the sending domain ${envelope} is aligned with the From domain.`
            : `the sending domain ${envelope} is not aligned with ${fromDomain}: DMARC passes only through a DKIM signature of ${fromDomain}.`
        }`,
        isAligned ? null : `Send from an address at ${envelope}, or sign with ${fromDomain}'s DKIM key.`,
      ),
    );
  }
  items.push(
    item(
      'domain',
      'bulk-rules',
      'Gmail and Yahoo bulk-sender rules',
      isBulk && !dmarc ? 'fail' : 'pass',
      `One-click unsubscribe (RFC 8058) is in every message Sendwell sends. ${
        isBulk
          ? `This send reaches ${audience.toLocaleString('en-US')} addresses: from ${BULK_SENDER_DAILY.toLocaleString('en-US')} a day Gmail and Yahoo require DMARC${dmarc ? ', which is published' : ', which is missing'}.`
          : `Under ${BULK_SENDER_DAILY.toLocaleString('en-US')} a day DMARC is recommended, not required.`
      }`,
      isBulk && !dmarc ? `Publish a DMARC record at _dmarc.${fromDomain} before sending this many.` : null,
    ),
  );
  return items;
};

/** A DNS failure (a timeout, a server refusing) says so instead of failing the whole check. */
const orUnknown = async (id: string, title: string, work: () => Promise<TPreSendItem | TPreSendItem[]>) => {
  try {
    const result = await work();
    return Array.isArray(result) ? result : [result];
  } catch (error) {
    return [
      item(
        'domain',
        id,
        title,
        'warn',
        `The DNS could not be asked (${(error as Error).message}).`,
        'Try the check again in a moment.',
      ),
    ];
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
  item(
    'domain',
    entry.id,
    entry.title,
    'warn',
    `Not checked: ${detail} This server's DNS answers cannot be trusted now.`,
    'Try the check again later; the operator has been told.',
  );

const messageItem = (finding: TSpamCheck): TPreSendItem =>
  item('message', `message-${finding.id}`, finding.title, finding.status, finding.detail, finding.advice);

const listItems = async (platform: TPlatform, userId: number, listIds: number[]) => {
  const [facts, recent] = await Promise.all([
    audienceFacts(platform.db, userId, listIds, platform.config.genericEmails),
    recentListFigures(platform.db, userId, listIds, RECENT_DAYS),
  ]);
  const unverified = percent(facts.unverified, facts.recipients);
  const generic = percent(facts.generic, facts.recipients);
  const items = [
    item(
      'lists',
      'unverified',
      'Unverified addresses',
      unverified >= 50 ? 'fail' : unverified >= 10 ? 'warn' : 'pass',
      `${facts.unverified.toLocaleString('en-US')} of ${facts.recipients.toLocaleString('en-US')} recipients (${shown(unverified)}) were never verified.`,
      unverified >= 10 ? 'Verify the lists first (Verify Your List): invalid addresses become hard bounces.' : null,
    ),
    item(
      'lists',
      'generic',
      'Generic addresses',
      generic >= 10 ? 'warn' : 'pass',
      `${facts.generic.toLocaleString('en-US')} recipients (${shown(generic)}) are role addresses such as info@ or sales@.`,
      generic >= 10
        ? 'Role addresses reach a team who did not subscribe and complain more: consider leaving them out.'
        : null,
    ),
  ];
  if (recent.attempts === 0) {
    items.push(
      item(
        'lists',
        'history',
        'Recent sends to these lists',
        'info',
        `No sends to these lists in the last ${RECENT_DAYS} days.`,
      ),
    );
  } else {
    const bounces = percent(recent.hard_bounces, recent.attempts);
    const complaints = percent(recent.complaints, recent.attempts);
    const status = bounces > 5 || complaints > 0.1 ? 'fail' : bounces > 2 || complaints > 0.05 ? 'warn' : 'pass';
    items.push(
      item(
        'lists',
        'history',
        'Recent sends to these lists',
        status,
        `${recent.sends.toLocaleString('en-US')} sends in the last ${RECENT_DAYS} days: ${shown(bounces)} hard bounces, ${shown(complaints)} spam complaints of ${recent.attempts.toLocaleString('en-US')} messages.`,
        status === 'pass'
          ? null
          : 'A send past 5% hard bounces or 0.1% complaints pauses itself: clean the lists before sending again.',
      ),
    );
  }
  return { items, audience: facts.recipients };
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
  const items = [
    item(
      'message',
      `${idPrefix}message-score`,
      `${prefix}Content score`,
      content.score >= 8 ? 'pass' : content.score >= 5 ? 'warn' : 'fail',
      `The spam test's own content and header checks give ${message.label ? `“${message.subject}”` : 'this message'} ${content.score} of 10 (${content.verdict}).`,
      content.score >= 8
        ? null
        : 'See the items below; a full spam test also asks the filters and checks the signatures.',
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
  return { items, score: content.score };
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
  const { resolve } = preSendResolver(platform);
  const [resolver, spfItems, dkimItems, dmarc, contents] = await Promise.all([
    resolverHealth(platform, resolve, input.account),
    orUnknown('spf', 'SPF', () => spfItem(resolve, input.account, input.fromAddress)),
    orUnknown('dkim', 'DKIM', () => dkimItem(platform, resolve, input.account, input.fromAddress, input.dkimSelector)),
    orUnknown('dmarc', 'DMARC', () => dmarcItems(resolve, input.account, input.fromAddress, input.audience)),
    Promise.all(input.messages.map((message) => messageItems(platform, userId, input, message))),
  ]);
  const domainItems = [...spfItems, ...dkimItems, ...dmarc];
  const items = [
    // A resolver that does not find names that must exist says nothing about this domain (R48).
    ...(resolver.isBroken ? domainItems.map((entry) => notCheckable(entry, resolver.detail)) : domainItems),
    ...contents.flatMap((content) => content.items),
    ...input.audienceItems,
  ];
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
  const account = await findAccountRow(platform.db, userId, facts.accountId);
  if (!account) throw notFound('This sending account does not exist.');
  const { recipients, generic, suppressed } = facts.recipients;
  const genericShare = percent(generic, recipients);
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
    audience: recipients,
    audienceItems: [
      item(
        'lists',
        'generic',
        'Generic addresses',
        genericShare >= 10 ? 'warn' : 'pass',
        `${generic.toLocaleString('en-US')} of ${recipients.toLocaleString('en-US')} recipients (${shown(genericShare)}) are role addresses such as info@ or sales@.`,
        genericShare >= 10
          ? 'Role addresses reach a team who did not subscribe and complain more: consider removing them (the recipients step can).'
          : null,
      ),
      item(
        'lists',
        'suppressed',
        'Suppressed recipients',
        suppressed > 0 ? 'info' : 'pass',
        suppressed > 0
          ? `${suppressed.toLocaleString('en-US')} recipients bounced, complained or unsubscribed before: they start stopped and get nothing.`
          : 'No recipient is on your suppression list.',
      ),
    ],
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
