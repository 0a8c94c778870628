import { z } from 'zod';
import { ACCOUNT_PROVIDERS } from '../accounts/accounts';
import { ZEmailDocument } from '../email/document';
import { userHtml } from '../html/html-bounds';
import { canonicalEmail, readEmailCell } from '../lists/email';
import { DEFAULT_TIME_ZONE, wallClock, zonedInstant } from '../time/zones';
import { AB_MESSAGES, AB_METRICS, AB_TEST_LIMITS } from './ab-test';
import { ZBreakerState } from './circuit-breaker';

/** The spec's Send Email messages (sending-lists-verification §5, §8). */
export const SEND_MESSAGES = {
  accountRequired: 'Please choose a sending account.',
  senderNameRequired: 'Sender Name field is required!',
  aliasRequired: 'From alias field is required!',
  aliasInvalid: 'The alias may only hold letters, digits and . _ + -',
  listsRequired: 'Please choose at least one mailing list.',
  replyToInvalid: 'Reply To must be a valid email address.',
  copyInvalid: 'Separate email addresses with commas; each must be a valid address.',
  subjectRequired: 'Subject field is required!',
  messageRequired: 'Message field is required!',
  lineBreak: 'Line breaks are not allowed in this field.',
  fromForeignDomain: "The sender address must be at the sending account's domain.",
  deliveryRequired: 'Delivery time field is required!',
  deliveryInvalid: 'Please choose the delivery time from the picker (YYYY-MM-DD hh:mm A).',
  deliveryPast: 'The delivery time must be in the future.',
  scheduleUpgrade: 'Upgrade your plan to create a scheduled email.',
  sent: 'Your email is on its way. You can follow it on this page.',
  scheduled: 'Your email has been scheduled.',
  /**
   * Why verifying matters (issue 45 §2): the spec's "will increase your email's spam score!"
   * was wrong; an address that does not exist bounces, and bounces cost reputation.
   */
  unverified:
    'Addresses that no longer exist bounce, and many bounces hurt your sender reputation: mailbox providers send more of your mail to spam, and a send past your hard-bounce limit pauses itself.',
  dailyLimitZero:
    'The daily sending balance of this SMTP account is 0. Schedule the email, or come back tomorrow to send it.',
  templateSaved: 'Your template has been saved.',
  templateDeleted: 'Your template has been deleted.',
  templateNameRequired: 'Template name field is required!',
  htmlFileType: 'File must be an HTML file (.html or .htm).',
} as const;

/** The warning of the duplicate confirmation modal. */
export const duplicatesWarning = (count: number) =>
  `${count.toLocaleString('en-US')} ${count === 1 ? 'address is' : 'addresses are'} on more than one of the chosen lists. Such recipients would get the email more than once; Sendwell sends it to each of them once.`;

/** The SMTP daily-limit warning when part of the audience can go now. */
export const dailyLimitPartialWarning = (remaining: number) =>
  `This SMTP account can send ${remaining.toLocaleString('en-US')} more ${remaining === 1 ? 'email' : 'emails'} now (its limit counts the last 24 hours): only the first ${remaining.toLocaleString('en-US')} recipients get it now, and the rest go out as the limit frees up over the following hours and days.`;

// ---------------------------------------------------------------- sender address

export type TAccountKind = (typeof ACCOUNT_PROVIDERS)[number];

/** SMTP and Google accounts send from their own address: the form takes a sender name alone. */
export const sendsAsSenderNameOnly = (provider: TAccountKind) => provider === 'smtp' || provider === 'google';

/**
 * The domain a sender alias goes with: a domain containing 'mg.' or 'mail.' (Mailgun's
 * sending subdomains) loses its first label, unless the user keeps the subdomain. "Contains"
 * as the spec words it, anywhere in the name ('email.example.com', 'newsmg.example.com'
 * too); a two-label domain ('gmail.com') stays whole, so no bare TLD is ever left.
 */
export const senderDomain = (domain: string, useSubdomain: boolean) => {
  const clean = domain.trim().toLowerCase();
  if (useSubdomain || !(clean.includes('mg.') || clean.includes('mail.'))) return clean;
  const labels = clean.split('.');
  return labels.length > 2 ? labels.slice(1).join('.') : clean;
};

export type TSenderInput = {
  provider: TAccountKind;
  senderName: string;
  alias: string;
  domain: string;
  useSubdomain: boolean;
};

/**
 * The spec's sender address (sending-lists-verification §5): SMTP and Gmail send as the
 * sender name alone; otherwise 'Name <alias@domain>', or 'alias@domain' without a name.
 */
export const senderAddress = ({ provider, senderName, alias, domain, useSubdomain }: TSenderInput) => {
  const name = senderName.trim();
  if (sendsAsSenderNameOnly(provider)) return name;
  const address = `${alias.trim()}@${senderDomain(domain, useSubdomain)}`;
  return name ? `${name} <${address}>` : address;
};

/** The address part alone (alias@domain) of a provider account's sender. */
export const senderEmail = (alias: string, domain: string, useSubdomain: boolean) =>
  `${alias.trim()}@${senderDomain(domain, useSubdomain)}`;

// ---------------------------------------------------------------- merge fields

export * from './merge-fields';

// ---------------------------------------------------------------- SMTP daily cap

/** An SMTP account's cap when none is set (spec §9). */
export const DEFAULT_MAIL_PER_DAY = 500;

/** What an SMTP account may still send now: the limit minus what it sent in the last 24 hours, never below 0. */
export const smtpRemaining = (smtpLimit: number, dailyCount: number) => Math.max(0, smtpLimit - dailyCount);

export type TDailyLimitWarning =
  | { kind: 'none' }
  | { kind: 'partial'; remaining: number; message: string }
  | { kind: 'zero'; message: string };

/**
 * The SMTP daily-limit warning of the send flow: nothing when the whole audience fits in
 * the balance (the cap less the last 24 hours), 'only the first N' when part of it does, 'balance is 0' when none does.
 */
export const dailyLimitWarning = (smtpLimit: number, dailyCount: number, recipients: number): TDailyLimitWarning => {
  const remaining = smtpRemaining(smtpLimit, dailyCount);
  if (remaining === 0) return { kind: 'zero', message: SEND_MESSAGES.dailyLimitZero };
  if (recipients > remaining) return { kind: 'partial', remaining, message: dailyLimitPartialWarning(remaining) };
  return { kind: 'none' };
};

// ---------------------------------------------------------------- delivery time

export const SCHEDULE_STEP_MINUTES = 5;
/** The last time of day the picker offers (spec §9: 5-minute steps up to 23:30). */
export const SCHEDULE_LAST_SLOT = '23:30';
/** How the picker shows a delivery time, and how the form sends it. */
export const DELIVERY_FORMAT = 'YYYY-MM-DD hh:mm A';
const DELIVERY_PATTERN = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}) (AM|PM)$/;

const pad = (value: number) => String(value).padStart(2, '0');

/** `YYYY-MM-DD hh:mm A` of an instant in a time zone. */
export const formatDeliveryTime = (instant: Date, timeZone: string = DEFAULT_TIME_ZONE) => {
  const clock = wallClock(instant, timeZone);
  const hour12 = clock.hour % 12 === 0 ? 12 : clock.hour % 12;
  return `${clock.year}-${pad(clock.month)}-${pad(clock.day)} ${pad(hour12)}:${pad(clock.minute)} ${clock.hour < 12 ? 'AM' : 'PM'}`;
};

/**
 * An instant as the delivery-time picker holds it, on the user's clock: the day `YYYY-MM-DD`
 * and the time of day `HH:mm` (24-hour). The edit form of a scheduled email starts from it, so
 * it shows what the list shows.
 */
export const deliveryParts = (instant: Date, timeZone: string = DEFAULT_TIME_ZONE) => {
  const clock = wallClock(instant, timeZone);
  return {
    date: `${clock.year}-${pad(clock.month)}-${pad(clock.day)}`,
    slot: `${pad(clock.hour)}:${pad(clock.minute)}`,
  };
};

/** The instant a `YYYY-MM-DD hh:mm A` text stands for in a time zone, or null when it is not one. */
export const parseDeliveryTime = (text: string, timeZone: string = DEFAULT_TIME_ZONE) => {
  const match = DELIVERY_PATTERN.exec(text.trim());
  if (!match) return null;
  const [, year, month, day, hour12, minute, meridiem] = match;
  const hour = (Number(hour12) % 12) + (meridiem === 'PM' ? 12 : 0);
  if (Number(hour12) < 1 || Number(hour12) > 12 || Number(minute) > 59) return null;
  const clock = { year: Number(year), month: Number(month), day: Number(day), hour, minute: Number(minute) };
  const probe = new Date(Date.UTC(clock.year, clock.month - 1, clock.day));
  if (probe.getUTCMonth() !== clock.month - 1 || probe.getUTCDate() !== clock.day) return null;
  return zonedInstant(clock, timeZone);
};

/** Whether a time of day is one the picker offers: a 5-minute step no later than 23:30. */
export const isDeliverySlot = (instant: Date, timeZone: string = DEFAULT_TIME_ZONE) => {
  const { hour, minute } = wallClock(instant, timeZone);
  const [lastHour, lastMinute] = SCHEDULE_LAST_SLOT.split(':').map(Number) as [number, number];
  return minute % SCHEDULE_STEP_MINUTES === 0 && hour * 60 + minute <= lastHour * 60 + lastMinute;
};

/** The earliest time the picker offers: now, rounded up to the next 5-minute step. */
export const earliestDeliveryTime = (now: Date = new Date()) => {
  const step = SCHEDULE_STEP_MINUTES * 60_000;
  return new Date(Math.ceil(now.getTime() / step) * step);
};

/** The times of day the picker offers, as `hh:mm A` labels with their 24-hour values. */
export const deliverySlots = () => {
  const [lastHour, lastMinute] = SCHEDULE_LAST_SLOT.split(':').map(Number) as [number, number];
  const slots: { value: string; label: string }[] = [];
  for (let minutes = 0; minutes <= lastHour * 60 + lastMinute; minutes += SCHEDULE_STEP_MINUTES) {
    const hour = Math.floor(minutes / 60);
    const minute = minutes % 60;
    const hour12 = hour % 12 === 0 ? 12 : hour % 12;
    slots.push({
      value: `${pad(hour)}:${pad(minute)}`,
      label: `${pad(hour12)}:${pad(minute)} ${hour < 12 ? 'AM' : 'PM'}`,
    });
  }
  return slots;
};

// ---------------------------------------------------------------- the form

/** Header fields never hold a line break: what a user types can never add a header (R18). */
const headerText = (max: number) =>
  z
    .string()
    .max(max)
    .refine((value) => !/[\r\n]/.test(value), { message: SEND_MESSAGES.lineBreak })
    .transform((value) => value.trim());

/**
 * CC or BCC: addresses (bare or `Name <addr>`) separated by commas or semicolons, each read
 * as a list reads a member's (`readEmailCell`: the lower-case A-label domain, no mailto:, no
 * line break) and kept once each, joined by ", ". The stored form is what suppression is
 * matched against, so `Bad@Example.COM ` and `"Bad" <bad@example.com>` are the same address.
 */
const copiesField = headerText(2000).transform((value, context) => {
  const addresses: string[] = [];
  for (const item of value.split(/[,;]/)) {
    if (item.trim() === '') continue;
    const { email } = readEmailCell(item);
    if (email === null) {
      context.addIssue({ code: 'custom', message: SEND_MESSAGES.copyInvalid });
      return z.NEVER;
    }
    if (!addresses.some((known) => known.toLowerCase() === email.toLowerCase())) addresses.push(email);
  }
  return addresses.join(', ');
});

/** Reply-To: empty, or one address in its stored form. */
const replyToField = headerText(320).transform((value, context) => {
  if (value === '') return '';
  const email = canonicalEmail(value);
  if (email === null) {
    context.addIssue({ code: 'custom', message: SEND_MESSAGES.replyToInvalid });
    return z.NEVER;
  }
  return email;
});

/**
 * The parts of a send a user writes, read the same way on every path that creates or
 * changes a send (R42): Send Email and its A/B parts, Edit Scheduled Email by either route,
 * Send again, the re-send by engagement, drip steps, the API. Each form names them as the
 * spec does (`message`, `reply`, `reply_to`); the engine checks them again as `ZSendContent`
 * before any send is written, so no path around a form skips them.
 */
export const SEND_FIELDS = {
  subject: headerText(998).pipe(z.string().min(1, { message: SEND_MESSAGES.subjectRequired })),
  /** A subject that may be left blank (a re-send keeps its send's own). */
  subjectOrBlank: headerText(998),
  message: userHtml(2_000_000).refine((value) => value.trim() !== '', { message: SEND_MESSAGES.messageRequired }),
  copies: copiesField,
  replyTo: replyToField,
};

/** A send's content as the engine stores it (`delivery.service`'s `checkedContent`). */
export const ZSendContent = z.object({
  subject: SEND_FIELDS.subject,
  html: SEND_FIELDS.message,
  cc: SEND_FIELDS.copies.default(''),
  bcc: SEND_FIELDS.copies.default(''),
  replyTo: SEND_FIELDS.replyTo.default(''),
});
export type TSendContent = z.output<typeof ZSendContent>;

/**
 * A send's storage id (the verify-lists upsell, spec §7): the id its list verifications are
 * started under, and the send names to wait for them. Letters, digits, '-' and '_'.
 */
export const ZStorageId = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9_-]{1,100}$/, 'A storage id has 1 to 100 letters, digits, - or _.');

/** What an alias may hold (one pass over a character class: linear). */
const ALIAS_PATTERN = /^[A-Za-z0-9._+-]+$/;

/**
 * `POST /api/email/send`: the email form under the spec's names (§3, §7): `account`, `from`
 * (the sender address formed from sender name, alias and domain, as `senderAddress` forms
 * it), `to` (the mailing lists), `subject`, `cc`, `bcc`, `reply` (reply-to), `message` (the
 * HTML), `delivery` (`YYYY-MM-DD hh:mm A` in the user's time zone), `sendLater` (the
 * confirmation's switch: on, the email waits for `delivery`; off, it goes now; absent, a
 * non-blank `delivery` means later) and `storageId` (the verify-lists upsell, spec §7: the id
 * the lists' verifications were started under with `verify`; while one of them runs, the send
 * waits and goes out by itself when they end, `leaveOutInvalid` saying whether the addresses
 * they found invalid are unsubscribed from the lists first). Kept beside them:
 * `senderName`, `alias` and `useSubdomain`, the parts `from` is formed from (when given,
 * the sender is built from them and a mistake is named on its own field; without them
 * they are read from `from`), and the tracking switches. What the account's kind requires
 * is checked by `sendFormIssues`.
 */
export const ZSendEmailRequest = z.object({
  account: z.coerce.number({ message: SEND_MESSAGES.accountRequired }).int().positive({
    message: SEND_MESSAGES.accountRequired,
  }),
  from: headerText(400).default(''),
  senderName: headerText(120).optional(),
  alias: headerText(64)
    .refine((value) => value === '' || ALIAS_PATTERN.test(value), { message: SEND_MESSAGES.aliasInvalid })
    .optional(),
  useSubdomain: z.boolean().optional(),
  to: z
    .array(z.coerce.number().int().positive(), { message: SEND_MESSAGES.listsRequired })
    .min(1, { message: SEND_MESSAGES.listsRequired })
    .max(100),
  subject: SEND_FIELDS.subject,
  cc: SEND_FIELDS.copies.default(''),
  bcc: SEND_FIELDS.copies.default(''),
  reply: SEND_FIELDS.replyTo.default(''),
  message: SEND_FIELDS.message,
  /** The builder's document the message was rendered from (issue 46); kept beside it, never sent. */
  document: ZEmailDocument.nullable().default(null),
  delivery: z.string().trim().max(40).default(''),
  sendLater: z.boolean().optional(),
  storageId: ZStorageId.optional(),
  leaveOutInvalid: z.boolean().optional(),
  trackOpens: z.boolean().default(true),
  trackClicks: z.boolean().default(true),
  /**
   * An A/B subject test (issue 31 §4; `ab-test.ts`): `subject` is A, `subjectB` (and
   * `subjectC`) the others; `abTestPercent` of the recipients test them, split evenly; after
   * `abWaitMinutes` the better `abMetric` rate goes to the rest. `abTestIssues` checks the rest.
   */
  abTest: z.boolean().default(false),
  subjectB: headerText(998).default(''),
  subjectC: headerText(998).default(''),
  abTestPercent: z.coerce
    .number({ message: AB_MESSAGES.percent })
    .min(AB_TEST_LIMITS.minPercent, { message: AB_MESSAGES.percent })
    .max(AB_TEST_LIMITS.maxPercent, { message: AB_MESSAGES.percent })
    .default(AB_TEST_LIMITS.defaultPercent),
  abWaitMinutes: z.coerce
    .number({ message: AB_MESSAGES.wait })
    .min(AB_TEST_LIMITS.minWaitMinutes, { message: AB_MESSAGES.wait })
    .max(AB_TEST_LIMITS.maxWaitMinutes, { message: AB_MESSAGES.wait })
    .default(AB_TEST_LIMITS.defaultWaitMinutes),
  abMetric: z.enum(AB_METRICS).default('opens'),
});
export type TSendEmailRequest = z.input<typeof ZSendEmailRequest>;
export type TSendEmailForm = z.output<typeof ZSendEmailRequest>;

export type TFormIssue = { path: string; message: string };

/** The parts a sender address is formed from (spec §4). */
export type TSenderParts = { senderName: string; alias: string; useSubdomain: boolean };

/**
 * The sender parts a send request stands for: its own `senderName`, `alias` and
 * `useSubdomain` when it has them, else read back from `from` as `senderAddress` forms it:
 * the sender name alone for SMTP and Gmail, otherwise 'Name <alias@domain>' or
 * 'alias@domain'. `isForeignDomain`: `from` names a domain other than the account's
 * `domain` (with or without its Mailgun subdomain).
 */
export const senderPartsOf = (
  form: Pick<TSendEmailForm, 'from' | 'senderName' | 'alias' | 'useSubdomain'>,
  provider: TAccountKind,
  domain: string,
): TSenderParts & { isForeignDomain: boolean } => {
  if (form.senderName !== undefined || form.alias !== undefined) {
    return {
      senderName: form.senderName ?? '',
      alias: form.alias ?? '',
      useSubdomain: form.useSubdomain ?? false,
      isForeignDomain: false,
    };
  }
  const from = form.from.trim();
  if (sendsAsSenderNameOnly(provider))
    return { senderName: from, alias: '', useSubdomain: false, isForeignDomain: false };
  const open = from.lastIndexOf('<');
  const hasName = open >= 0 && from.endsWith('>');
  const address = hasName ? from.slice(open + 1, -1).trim() : from;
  const quotedName = hasName ? from.slice(0, open).trim() : '';
  const senderName =
    quotedName.length >= 2 && quotedName.startsWith('"') && quotedName.endsWith('"')
      ? quotedName.slice(1, -1)
      : quotedName;
  const at = address.lastIndexOf('@');
  const addressDomain = at < 0 ? '' : address.slice(at + 1).toLowerCase();
  const isSubdomain = addressDomain !== senderDomain(domain, false) && addressDomain === senderDomain(domain, true);
  return {
    senderName,
    alias: at < 0 ? address : address.slice(0, at),
    useSubdomain: isSubdomain,
    isForeignDomain: addressDomain !== '' && addressDomain !== senderDomain(domain, false) && !isSubdomain,
  };
};

/** Whether a request asks to wait for its delivery time (`sendLater`, or else a delivery time given). */
export const isSendLater = (form: Pick<TSendEmailForm, 'delivery' | 'sendLater'>) =>
  form.sendLater ?? form.delivery.trim() !== '';

/**
 * What the account's kind and the delivery time require (spec §5): a sender name for
 * SMTP and Gmail, an alias (at the account's domain) for the others; for a send later, a
 * delivery time that parses, lies ahead, and is allowed by the plan.
 */
export const sendFormIssues = (
  form: Pick<TSenderParts, 'senderName' | 'alias'> &
    Pick<TSendEmailForm, 'delivery' | 'sendLater'> & { isForeignDomain?: boolean },
  context: { provider: TAccountKind; allowsScheduling: boolean; timeZone: string; now?: Date },
): TFormIssue[] => {
  const issues: TFormIssue[] = [];
  if (sendsAsSenderNameOnly(context.provider)) {
    if (!form.senderName.trim()) issues.push({ path: 'senderName', message: SEND_MESSAGES.senderNameRequired });
  } else if (!form.alias.trim()) {
    issues.push({ path: 'alias', message: SEND_MESSAGES.aliasRequired });
  } else if (!ALIAS_PATTERN.test(form.alias.trim())) {
    issues.push({ path: 'alias', message: SEND_MESSAGES.aliasInvalid });
  } else if (form.isForeignDomain) {
    issues.push({ path: 'from', message: SEND_MESSAGES.fromForeignDomain });
  }
  if (isSendLater(form)) {
    const instant = form.delivery ? parseDeliveryTime(form.delivery, context.timeZone) : null;
    if (!context.allowsScheduling) issues.push({ path: 'delivery', message: SEND_MESSAGES.scheduleUpgrade });
    else if (!form.delivery) issues.push({ path: 'delivery', message: SEND_MESSAGES.deliveryRequired });
    else if (!instant || !isDeliverySlot(instant, context.timeZone)) {
      issues.push({ path: 'delivery', message: SEND_MESSAGES.deliveryInvalid });
    } else if (instant.getTime() < (context.now ?? new Date()).getTime() - 60_000) {
      issues.push({ path: 'delivery', message: SEND_MESSAGES.deliveryPast });
    }
  }
  return issues;
};

/** `POST /api/email/get-duplicates`. */
export const ZDuplicatesRequest = z.object({
  mailingLists: z.array(z.coerce.number().int().positive()).min(1, { message: SEND_MESSAGES.listsRequired }).max(100),
});
export const ZDuplicatesResponse = z.object({
  /** Addresses on more than one of the chosen lists (each gets the email once). */
  duplicates: z.number().int(),
  /** Subscribed addresses the send would reach, each once, before suppressions. */
  recipients: z.number().int(),
  /** Of those, addresses not verified yet (for the verify-lists upsell). */
  unverified: z.number().int(),
});
export type TDuplicatesResponse = z.infer<typeof ZDuplicatesResponse>;

// ---------------------------------------------------------------- templates

export const ZTemplate = z.object({
  /** A row's id for the user's own; `starter:<key>` for Sendwell's starter templates (issue 46 §6). */
  id: z.union([z.number().int(), z.string()]),
  name: z.string(),
  subject: z.string(),
  html: z.string(),
  /** The builder's document, for a template made in Visual mode (it opens there). */
  document: ZEmailDocument.nullable(),
  /** What a starter template is for (the gallery's line); empty for the user's own. */
  description: z.string().default(''),
  /** One of Sendwell's starting templates (read-only) rather than the user's own. */
  builtIn: z.boolean(),
});
export type TTemplate = z.infer<typeof ZTemplate>;

/** `POST /api/templates`: save the form's message as a template of the user's own. */
export const ZSaveTemplateRequest = z.object({
  name: z.string().trim().min(1, { message: SEND_MESSAGES.templateNameRequired }).max(120),
  subject: z.string().max(998).default(''),
  html: userHtml(2_000_000).refine((value) => value.trim() !== '', { message: SEND_MESSAGES.messageRequired }),
  document: ZEmailDocument.nullable().default(null),
});
export type TSaveTemplateRequest = z.input<typeof ZSaveTemplateRequest>;

// ---------------------------------------------------------------- the page's data

/** An account as the send form needs it. */
export const ZSendAccount = z.object({
  id: z.number().int(),
  name: z.string(),
  provider: z.enum(ACCOUNT_PROVIDERS),
  /** The domain of the sender alias (read-only in the form); empty for SMTP and Gmail. */
  domain: z.string(),
  /** Where SMTP and Gmail accounts send from. */
  fromAddress: z.string(),
  active: z.boolean(),
});
export type TSendAccount = z.infer<typeof ZSendAccount>;

/** A mailing list offered by the form's multiselect. */
export const ZSendList = z.object({
  id: z.number().int(),
  name: z.string(),
  address: z.string(),
  subscribed: z.number().int(),
  unverified_subscribers_count: z.number().int(),
});
export type TSendList = z.infer<typeof ZSendList>;

/** `GET /api/email/send-email-content?account=`: everything the Send Email page starts from (spec §7). */
export const ZSendEmailContent = z.object({
  status: z.literal(true),
  data: z.object({
    chosenAccount: z.number().int().nullable(),
    templates: z.array(ZTemplate),
    accounts: z.array(ZSendAccount),
    mailingLists: z.array(ZSendList),
    isSmtp: z.boolean(),
    /** The SMTP account's daily cap, and what it has sent in the last 24 hours (the cap's window). */
    smtpLimit: z.number().int(),
    dailyCount: z.number().int(),
    totalCredit: z.number(),
    usedCredit: z.number(),
    allowsScheduling: z.boolean(),
    timeZone: z.string(),
    /**
     * What a spam test costs here (`SPAM_TEST_CREDITS` of the server's configuration; 0 with
     * `BILLING=off`): Test My Mail and the spam test page show and gate on it (spec §9).
     */
    spamTestCredits: z.number().int().min(0),
  }),
});
export type TSendEmailContent = z.infer<typeof ZSendEmailContent>['data'];

/** `GET /api/email/get-mailing-lists/{accountId}`. */
export const ZAccountListsResponse = z.object({
  status: z.literal(true),
  listData: z.array(ZSendList),
  isSmtp: z.boolean(),
  smtpLimit: z.number().int(),
  dailyCount: z.number().int(),
});
export type TAccountListsResponse = z.infer<typeof ZAccountListsResponse>;

export const SEND_AFTER_VERIFICATION_STATUSES = ['waiting', 'starting', 'started', 'failed', 'cancelled'] as const;

/** A send waiting for its lists' verification (the verify-lists upsell), with how far the verification got. */
export const ZSendAfterVerification = z.object({
  storageId: z.string(),
  subject: z.string(),
  listIds: z.array(z.number().int()),
  status: z.enum(SEND_AFTER_VERIFICATION_STATUSES),
  sendId: z.number().int().nullable(),
  error: z.string().nullable(),
  leaveOutInvalid: z.boolean(),
  /** The list verifications it waits for: checked of total, and the verdicts so far. */
  verification: z.object({
    jobs: z.array(z.number().int()),
    total: z.number().int(),
    checked: z.number().int(),
    valid: z.number().int(),
    invalid: z.number().int(),
    unknown: z.number().int(),
  }),
});
export type TSendAfterVerification = z.infer<typeof ZSendAfterVerification>;

/**
 * `POST /api/email/send` → what was created: the send, or (a `storageId` whose lists are
 * being verified) nothing yet: `waiting` names the send that goes out when they end.
 */
export const ZSendEmailResponse = z.object({
  status: z.literal(true),
  message: z.string(),
  sendId: z.number().int().nullable(),
  scheduled: z.boolean(),
  waiting: ZSendAfterVerification.optional(),
});

export const SEND_STATUSES = [
  'scheduled',
  'queued',
  'snapshotting',
  'sending',
  'paused',
  'cancelled',
  'finished',
  'failed',
  'held',
] as const;

/** `GET /api/email/sends/{id}`: a send's progress (also pushed as `SendProgressEvent`). */
export const ZSendProgress = z.object({
  id: z.number().int(),
  status: z.enum(SEND_STATUSES),
  subject: z.string(),
  from: z.string(),
  to: z.string(),
  recipients_count: z.number().int(),
  sent_count: z.number().int(),
  failed_count: z.number().int(),
  unknown_count: z.number().int(),
  /** Recipients waiting: pending, deferred or in flight. */
  waiting_count: z.number().int(),
  delivered_count: z.number().int(),
  opened_count: z.number().int(),
  clicked_count: z.number().int(),
  complained_count: z.number().int(),
  unsubscribed_count: z.number().int(),
  /** Why the send waits (the SMTP daily cap) or failed; null otherwise. */
  note: z.string().nullable(),
  /** Why the circuit breaker paused the send (issue 31), shown while it is paused; null if it never did. */
  breaker_reason: z.string().nullable().optional(),
  /** The breaker's live figures (and its resume, when judged again), for a send it paused; null otherwise. */
  breaker: ZBreakerState.nullable().optional(),
  deliver_at: z.string().nullable(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  created_at: z.string(),
});
export type TSendProgress = z.infer<typeof ZSendProgress>;
