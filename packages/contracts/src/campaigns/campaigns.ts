import { z } from 'zod';
import { ZEmailDocument } from '../email/document';
import { hasTextOutsideTags, userHtml } from '../html/html-bounds';
import { pageQuery } from '../paging/paging';
import { SEND_FIELDS, ZSendAccount } from '../sending/sending';
import { CAMPAIGN_MESSAGES, FREQUENCIES, ZDailyPlan } from './schedule';

export * from './schedule';

/** Spec §9. */
export const CAMPAIGN_DEFAULTS = {
  mailPerDay: 500,
  mailPerDelay: 120,
  period: 5,
  frequency: 'day' as const,
  previewRecipients: 50,
  csvMaxBytes: 1500 * 1024,
};
/** The manual recipient table's columns (spec §2 recipients step); email and name always come first. */
export const MANUAL_COLUMNS = [
  'email',
  'name',
  'lastName',
  'company',
  'title',
  'phone',
  'address',
  'city',
  'state',
  'country',
  'industry',
] as const;
export const RECIPIENTS_MAX = 100_000;
/**
 * Unsaved campaigns a user keeps at once: each holds the rows of its files until it is saved,
 * at most RECIPIENTS_MAX of them, so what one account can store this way is bounded (R30).
 */
export const DRAFTS_MAX = 50;

const line = (max: number) =>
  z
    .string()
    .max(max)
    .refine((value) => !/[\r\n]/.test(value), { message: 'Line breaks are not allowed in this field.' })
    .transform((value) => value.trim());

// ---------------------------------------------------------------- the wizard's steps

export const ZTemporary = z.object({ temporary: z.string().min(8).max(64) });

export const ZCampaignStart = z.object({
  temporary: z.string().min(8).max(64).optional(),
  accountId: z.coerce.number().int().positive({ message: 'Please choose a sending account.' }),
  title: line(200).pipe(z.string().min(1, { message: CAMPAIGN_MESSAGES.titleRequired })),
  senderName: line(120).default(''),
  alias: line(64).default(''),
  useSubdomain: z.boolean().default(false),
  signature: userHtml(20_000).default(''),
  /** The signature's builder document (issue 46); null for one written in HTML. */
  signatureDocument: ZEmailDocument.nullable().default(null),
});
export type TCampaignStart = z.input<typeof ZCampaignStart>;

export const ZCampaignRecipient = z.object({
  email: z.string().max(320),
  name: z.string().max(200).default(''),
  /** Custom variables (merge fields): column name → value; empty values are left out. */
  variables: z.record(z.string().max(64), z.string().max(1000)).default({}),
});
export type TCampaignRecipientInput = z.input<typeof ZCampaignRecipient>;

/** Octets of a string in UTF-8, counted without encoding it. */
const utf8Length = (text: string) => {
  let octets = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    // A surrogate pair is one 4-octet character: 2 for each of its halves.
    octets += code < 0x80 ? 1 : code < 0x800 || (code >= 0xd800 && code <= 0xdfff) ? 2 : 3;
  }
  return octets;
};

/**
 * The size of the CSV these recipients came from, as far as it is used: each row's email,
 * name and variable values with a delimiter between cells and a line break after. The
 * browser reads the file and posts its rows, so this is how the server holds the spec's
 * file limit (CAMPAIGN_DEFAULTS.csvMaxBytes) for anyone calling the API directly; the
 * columns the wizard skips are not sent, so a file the browser accepted always fits.
 */
export const recipientsCsvBytes = (recipients: readonly z.input<typeof ZCampaignRecipient>[]) => {
  let octets = 0;
  for (const recipient of recipients) {
    const values = Object.values(recipient.variables ?? {});
    octets += utf8Length(recipient.email) + utf8Length(recipient.name ?? '') + 2 + values.length;
    for (const value of values) octets += utf8Length(value);
  }
  return octets;
};

/**
 * Step 2 (spec §2 Recipients): the rows of one file, or of the manual table, added to the
 * campaign's recipients as a source of their own (a second file adds to the first); `skip`
 * moves on without any (Skip, when no file exists yet).
 */
export const ZCampaignRecipients = ZTemporary.extend({
  recipients: z
    .array(ZCampaignRecipient)
    .max(RECIPIENTS_MAX)
    .refine((recipients) => recipientsCsvBytes(recipients) <= CAMPAIGN_DEFAULTS.csvMaxBytes, {
      message: CAMPAIGN_MESSAGES.csvTooLarge,
    }),
  removeGeneric: z.boolean().default(false),
  /** Replace what earlier uploads added (every source removed first) rather than add to it. */
  replace: z.boolean().default(false),
  /** Where the rows come from: a file (its name) or the manual table. */
  source: z.enum(['file', 'manual']).default('file'),
  fileName: z.string().trim().max(255).default(''),
  skip: z.boolean().default(false),
}).superRefine((input, context) => {
  if (!input.skip && input.recipients.length === 0) {
    context.addIssue({ code: 'custom', path: ['recipients'], message: CAMPAIGN_MESSAGES.csvMissing });
  }
});

/** A source of a draft's recipients, as the recipients step lists them (spec: the list of files). */
export const ZCampaignSource = z.object({
  /** Its place in the list (0-based), the spec's `index` for removing it. */
  index: z.number().int(),
  id: z.number().int(),
  kind: z.enum(['file', 'manual', 'list']),
  name: z.string(),
  list_id: z.number().int().nullable(),
  /** Rows read (a file's, the manual table's) or members on the list. */
  rows: z.number().int(),
  /** Addresses it gave first. */
  added: z.number().int(),
  /** Addresses an earlier row gave already, in it or in an earlier source (counted once, kept once). */
  duplicates: z.number().int(),
  /** Rows without a valid address or generic ones removed; a list's unsubscribed and suppressed members. */
  skipped: z.number().int(),
  /** A list's subscribed members not verified yet. */
  unverified: z.number().int(),
  created_at: z.string(),
});
export type TCampaignSource = z.infer<typeof ZCampaignSource>;

/** Where a draft's recipients stand after a change of its sources. */
export const ZRecipientsSummary = z.object({
  count: z.number().int(),
  /** Of the source just added: addresses new to the campaign. */
  added: z.number().int(),
  /** Of the source just added: rows left out. */
  skipped: z.number().int(),
  /** Recipients whose address is suppressed (bounced, complained, unsubscribed): kept, but never sent to. */
  suppressed: z.number().int(),
  /** Addresses given by more than one row, across every source. */
  duplicates: z.number().int(),
  files: z.array(ZCampaignSource),
});
export type TRecipientsSummary = z.infer<typeof ZRecipientsSummary>;

/** Recipients from mailing lists (issue 47): their subscribed, unsuppressed members, as Send Email takes them. */
export const ZCampaignRecipientLists = ZTemporary.extend({
  listIds: z.array(z.coerce.number().int().positive()).min(1, { message: 'Please choose a mailing list.' }).max(20),
});

/**
 * Spec §3's follow-up (wire field `followUp`), an unopened step: the further email a step sends
 * when its message is not opened within `waitDays` (default 5), in the same thread.
 */
export const ZUnopenedStep = z.object({
  waitDays: z.coerce.number().int().min(1).max(365).default(5),
  subject: line(998).pipe(z.string().min(1, { message: CAMPAIGN_MESSAGES.subjectRequired })),
  body: userHtml(2_000_000).refine(hasTextOutsideTags, { message: CAMPAIGN_MESSAGES.bodyRequired }),
  /** The body's builder document (issue 46); null for one written in HTML. */
  document: ZEmailDocument.nullable().default(null),
});
export type TUnopenedStep = z.input<typeof ZUnopenedStep>;

/**
 * Spec §3's click follow-up (wire field `clickFollowUp`), a click step: the further email a step
 * sends `waitDays` (default 1) after the recipient clicks `link` (any link when empty).
 */
export const ZClickStep = ZUnopenedStep.extend({
  waitDays: z.coerce.number().int().min(0).max(365).default(1),
  link: z
    .string()
    .trim()
    .max(2000)
    .refine((value) => value === '' || /^https?:\/\//i.test(value), {
      message: 'The link starts with http:// or https://.',
    })
    .default(''),
});
export type TClickStep = z.input<typeof ZClickStep>;

/** A step as the wizard and Edit Sequence send it (the spec's drip email); `id` for one saved before. */
export const ZStepInput = z.object({
  id: z.number().int().positive().optional(),
  subject: line(998).pipe(z.string().min(1, { message: CAMPAIGN_MESSAGES.subjectRequired })),
  body: userHtml(2_000_000).refine((value) => hasTextOutsideTags(value) || /<img\b/i.test(value), {
    message: CAMPAIGN_MESSAGES.bodyRequired,
  }),
  // The one Reply-To rule of every send (R42), its stored form.
  replyTo: SEND_FIELDS.replyTo.default(''),
  /** The body's builder document (issue 46); null for one written in HTML. */
  bodyDocument: ZEmailDocument.nullable().default(null),
  globalReply: z.boolean().default(false),
  period: z.coerce.number().int().min(0).max(1000).default(5),
  frequency: z.enum(FREQUENCIES).default('day'),
  followUp: ZUnopenedStep.nullable().default(null),
  clickFollowUp: ZClickStep.nullable().default(null),
});
export type TStepInput = z.input<typeof ZStepInput>;

export const ZSequence = z.object({
  drips: z.array(ZStepInput).min(1).max(30),
  dailyPlan: ZDailyPlan,
});
export type TSequence = z.input<typeof ZSequence>;

/**
 * One saved step of a campaign's sequence, as the screens edit it: a step input with its id.
 * It comes over the wire in two shapes the spec fixes: camelCase in the wizard's draft
 * (`get-temporary-data`, the spec's drips store) and snake_case with counts on the E-Mails
 * page (`get-data/emails`, the spec's server fields); `stepOfEmail` turns the second into it.
 */
export const ZCampaignStep = ZStepInput.extend({ id: z.number().int() });
export type TCampaignStep = z.output<typeof ZCampaignStep>;

export const ZCampaignOptions = z
  .object({
    trackOpens: z.boolean().default(true),
    trackClicks: z.boolean().default(false),
    scheduled: z.boolean().default(false),
    /** An instant (ISO 8601) when scheduled. */
    scheduleTime: z.string().max(40).nullable().default(null),
    /** Spec §3 names it among the options and gives it no screen or behaviour: kept and answered, nothing more. */
    leadCatcher: z.boolean().default(false),
    acceptLaw: z.boolean().refine((value) => value, { message: CAMPAIGN_MESSAGES.acceptLaw }),
  })
  .superRefine((options, context) => {
    if (!options.scheduled) return;
    if (!options.scheduleTime || Number.isNaN(Date.parse(options.scheduleTime))) {
      context.addIssue({ code: 'custom', path: ['scheduleTime'], message: CAMPAIGN_MESSAGES.scheduleRequired });
    }
  });
export type TCampaignOptions = z.input<typeof ZCampaignOptions>;

export const ZWizardStep = z.object({ step: z.number().int().min(1).max(6) });

/** A draft as the wizard resumes it: each step's saved data and the furthest step reached. */
export const ZCampaignDraft = z.object({
  id: z.number().int(),
  temporaryKey: z.string(),
  step: z.number().int(),
  start: z.object({
    accountId: z.number().int().nullable(),
    title: z.string(),
    senderName: z.string(),
    alias: z.string(),
    useSubdomain: z.boolean(),
    signature: z.string(),
    signatureDocument: z.unknown().nullable().default(null),
    from: z.string(),
  }),
  recipients: z.object({
    count: z.number().int(),
    variables: z.array(z.string()),
    sample: z.array(z.object({ email: z.string(), name: z.string(), variables: z.record(z.string(), z.string()) })),
    /** The sources, in the order they were added (spec: the list of files). */
    files: z.array(ZCampaignSource),
    duplicates: z.number().int(),
  }),
  drips: z.array(ZCampaignStep),
  dailyPlan: ZDailyPlan,
  options: z.object({
    trackOpens: z.boolean(),
    trackClicks: z.boolean(),
    scheduled: z.boolean(),
    scheduleTime: z.string().nullable(),
    leadCatcher: z.boolean(),
    acceptLaw: z.boolean(),
  }),
});
export type TCampaignDraft = z.infer<typeof ZCampaignDraft>;

// ---------------------------------------------------------------- the campaign views

/**
 * Where a campaign stands, the same on the list and on its page: finished once no recipient is
 * left to send to (whatever its running flag says), else paused, scheduled or running.
 */
export const ZCampaignState = z.enum(['running', 'paused', 'scheduled', 'finished', 'draft']);
export type TCampaignState = z.infer<typeof ZCampaignState>;

export const ZCampaignRow = z.object({
  id: z.number().int(),
  title: z.string(),
  running: z.boolean(),
  status: ZCampaignState,
  created_at: z.string(),
  account_name: z.string().nullable(),
  step: z.number().int(),
  members_count: z.number().int(),
  sent_count: z.number().int(),
  opened_count: z.number().int(),
  bounced_count: z.number().int(),
});
export type TCampaignRow = z.infer<typeof ZCampaignRow>;

export const ZCampaignListQuery = pageQuery({
  columns: ['created_at', 'title'],
  defaultColumn: 'created_at',
  defaultOrder: 'desc',
}).extend({ temporary: z.coerce.number().int().min(0).max(1).default(0) });

export const ZCampaignCounts = z.object({
  recipients: z.number().int(),
  emails: z.number().int(),
  sent: z.number().int(),
  queued: z.number().int(),
  delivered: z.number().int(),
  opened: z.number().int(),
  clicked: z.number().int(),
  bounced: z.number().int(),
  unsubscribed: z.number().int(),
});
export type TCampaignCounts = z.infer<typeof ZCampaignCounts>;

export const ZCampaignGeneral = z.object({
  id: z.number().int(),
  title: z.string(),
  /** The spec's running flag (true running, false paused). */
  status: z.boolean(),
  /** Where it stands, as the campaign list shows it. */
  state: ZCampaignState,
  schedule_at: z.string().nullable(),
  signature: z.string(),
  signature_document: z.unknown().nullable().default(null),
  sender_name: z.string(),
  alias: z.string(),
  domain: z.string(),
  provider: z.string().nullable(),
  account_name: z.string().nullable(),
  mail_per_day: z.number().int(),
  mail_per_delay: z.number().int(),
  /** The account's own daily limit (SMTP); null when it has none (Mailgun, the test inbox). */
  account_limit: z.number().int().nullable(),
  from: z.string(),
  track_opens: z.boolean(),
  dailyPlan: ZDailyPlan,
  is_draft: z.boolean(),
  /** Why the circuit breaker stopped the campaign (issue 31), until it is started again; null otherwise. */
  breaker_reason: z.string().nullable().optional(),
});
export type TCampaignGeneral = z.infer<typeof ZCampaignGeneral>;

export const ZCampaignSettings = z.object({
  title: line(200).pipe(z.string().min(1, { message: CAMPAIGN_MESSAGES.titleRequired })),
  from: line(120).default(''),
  alias: line(64).optional(),
  signature: userHtml(20_000).default(''),
  /** The signature's builder document (issue 46); null for one written in HTML. */
  signatureDocument: ZEmailDocument.nullable().default(null),
  mailPerDay: z.coerce.number().int().min(1).max(100_000),
  mailPerDelay: z.coerce.number().int().min(120, { message: CAMPAIGN_MESSAGES.mailPerDelayMin }).max(86_400),
});

export const ZCampaignEmail = z.object({
  id: z.number().int(),
  order: z.number().int(),
  subject: z.string(),
  body: z.string(),
  body_document: z.unknown().nullable().default(null),
  reply_to: z.string(),
  global_reply: z.boolean(),
  period: z.number().int(),
  frequency: z.enum(FREQUENCIES),
  follow_up: ZUnopenedStep.nullable(),
  click_follow_up: ZClickStep.nullable(),
  first: z.boolean(),
  sent_count: z.number().int(),
  queued_count: z.number().int(),
  delivered_count: z.number().int(),
  opened_count: z.number().int(),
  clicked_count: z.number().int(),
  bounced_count: z.number().int(),
});
export type TCampaignEmail = z.infer<typeof ZCampaignEmail>;

/** A stored builder document, or null when it is missing or no longer reads as one (a body written in HTML). */
const documentOf = (stored: unknown) => {
  const parsed = ZEmailDocument.nullable().safeParse(stored ?? null);
  return parsed.success ? parsed.data : null;
};

/** The E-Mails page's row (the spec's server fields) as the step the sequence editor edits: the one conversion. */
export const stepOfEmail = (email: TCampaignEmail): TCampaignStep => ({
  id: email.id,
  subject: email.subject,
  body: email.body,
  bodyDocument: documentOf(email.body_document),
  replyTo: email.reply_to,
  globalReply: email.global_reply,
  period: email.period,
  frequency: email.frequency,
  followUp: email.follow_up && { ...email.follow_up, document: documentOf(email.follow_up.document) },
  clickFollowUp: email.click_follow_up && {
    ...email.click_follow_up,
    document: documentOf(email.click_follow_up.document),
  },
});

export const RECIPIENT_FILTERS = ['paused', 'sent', 'opened', 'clicked', 'bounced', 'unsubscribed'] as const;

export const ZCampaignMember = z.object({
  id: z.number().int(),
  email: z.string(),
  name: z.string(),
  /** True: running; false: paused (the spec's recipient toggle). */
  status: z.boolean(),
  state: z.enum(['active', 'done', 'stopped']),
  stop_reason: z.string().nullable(),
  next_position: z.number().int(),
  due_at: z.string().nullable(),
  created_at: z.string(),
  variables: z.array(z.object({ field_key: z.string(), field_value: z.string() })),
});
export type TCampaignMember = z.infer<typeof ZCampaignMember>;

export const ZCampaignMembersQuery = pageQuery({
  columns: ['email', 'created_at'],
  defaultColumn: 'email',
  defaultOrder: 'asc',
}).extend({ filter: z.enum(RECIPIENT_FILTERS).optional() });

export const ZRecipientHistoryItem = z.object({
  /** `sent`: the account accepted the message (spec §2's sent items, with subject and text); `delivered` after. */
  event_type: z.enum(['queued', 'sent', 'delivered', 'opened', 'clicked', 'failed']),
  created_at: z.string(),
  /** The subject and the HTML as this recipient got them (merge fields filled in). */
  subject: z.string().nullable(),
  body: z.string().nullable(),
  order: z.number().int(),
  message: z.string().nullable(),
});

/** Spec §3 campaign member (list view): the members-list variant's row. */
export const ZCampaignMemberRow = z.object({ id: z.number().int(), fullname: z.string(), email: z.string() });
export type TCampaignMemberRow = z.infer<typeof ZCampaignMemberRow>;

/** Spec §9: the members list starts at 2 a page. */
export const MEMBERS_LIST_PER_PAGE = 2;

/**
 * What a campaign message is: a step's own, or an unopened or a click step's. The values are
 * those stored in `campaign_messages.kind` (the spec's names of the last two).
 */
export const CAMPAIGN_MESSAGE_KINDS = ['step', 'follow-up', 'click-follow-up'] as const;
export type TCampaignMessageKind = (typeof CAMPAIGN_MESSAGE_KINDS)[number];

/** A message of the campaign that failed, for its errors page. */
export const ZCampaignFailure = z.object({
  id: z.number().int(),
  recipient_id: z.number().int(),
  email: z.string(),
  name: z.string(),
  order: z.number().int(),
  kind: z.enum(CAMPAIGN_MESSAGE_KINDS),
  subject: z.string(),
  /** The provider's or the receiving server's own words. */
  reason: z.string().nullable(),
  failed_at: z.string(),
});
export type TCampaignFailure = z.infer<typeof ZCampaignFailure>;

/** A sending account as the wizard offers it (`get-account-information`): Send Email's, with its daily limit. */
export const ZCampaignAccount = ZSendAccount.extend({
  /** Its daily limit (SMTP); null when it has none. */
  mailPerDay: z.number().int().nullable(),
});
export type TCampaignAccount = z.infer<typeof ZCampaignAccount>;

/**
 * A step's HTML with the campaign's signature: before `</body>` when the body is a whole
 * document (the editor's), else after it, as the wizard's preview and the scheduler both show it.
 */
export const withSignature = (body: string, signature: string) => {
  if (!signature) return body;
  const close = body.toLowerCase().lastIndexOf('</body>');
  return close === -1 ? `${body}<br><br>${signature}` : `${body.slice(0, close)}${signature}${body.slice(close)}`;
};
