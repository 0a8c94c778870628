import { z } from 'zod';
import { canonicalDomain } from '../lists/email';

/** The spec's account messages (drip-accounts-dashboard §5, §6). */
export const ACCOUNT_MESSAGES = {
  upgrade: 'Upgrade your plan to create a new account!',
  passwordRequired: 'The Password field is required for this operation!',
  nameRequired: 'The Account Name field is required.',
  domainRequired: 'The Domain field is required.',
  /** Not the spec's: the domain goes into Mailgun's URLs, so it must be a host name and nothing else. */
  domainInvalid:
    'The Domain must be a domain name as Mailgun lists it, such as mg.example.com: letters, digits, hyphens and dots only (no slashes, spaces, ports, # or %).',
  apiKeyRequired: 'The API Key field is required.',
  serviceRequired: 'The SMTP Service field is required.',
  usernameRequired: 'The Username field is required.',
  hostRequired: 'The Host field is required.',
  portInvalid: 'The Port must be a number between 1 and 65535.',
  encryptionRequired: 'The Encryption field is required.',
  fromAddressInvalid: 'The From Address must be a valid email address.',
  dkimSelectorInvalid:
    'A DKIM selector holds letters, digits, dots, dashes and underscores (the part before ._domainkey).',
  mailPerDayInvalid: 'The Maximum Email per Day must be a number from 1 to 1000.',
  /** Not the spec's: a saved password is only sent where it was saved for (R27). */
  passwordForChangedServer:
    'The host, port or username has changed: please enter the password again. A saved password is only sent to the server and username it was saved for.',
  googleMailboxChanged:
    'This account is connected to another Gmail address by Google sign-in: sign in with Google again for this address, or enter its app password.',
} as const;

export const ACCOUNT_PROVIDERS = ['mailgun', 'smtp', 'google'] as const;
export type TAccountProvider = (typeof ACCOUNT_PROVIDERS)[number];
export const MAILGUN_REGIONS = ['us', 'eu'] as const;
export const SMTP_ENCRYPTIONS = ['tls', 'ssl'] as const;
export const MAIL_PER_DAY_MAX = 1000;
export const API_KEY_VISIBLE_CHARACTERS = 6;
export const TEST_INBOX_DRIVER = 'test-inbox';

export type TSmtpService = {
  driver: string;
  label: string;
  host: string;
  port: number;
  encryption: 'tls' | 'ssl';
  /** What the service allows a day; the form asks only when it exceeds the default. */
  maxPerDay: number;
  defaultPerDay: number;
  /** The service sends only from a verified sender, which must be given. */
  needsFromAddress: boolean;
};

/** SMTP services a user picks from; the form fills host, port and encryption from the choice. */
export const SMTP_SERVICES: readonly TSmtpService[] = [
  {
    driver: 'smtp',
    label: 'SMTP server',
    host: '',
    port: 587,
    encryption: 'tls',
    maxPerDay: 1000,
    defaultPerDay: 500,
    needsFromAddress: false,
  },
  {
    driver: 'sendgrid',
    label: 'SendGrid',
    host: 'smtp.sendgrid.net',
    port: 587,
    encryption: 'tls',
    maxPerDay: 1000,
    defaultPerDay: 100,
    needsFromAddress: true,
  },
  {
    driver: 'mailgun',
    label: 'Mailgun SMTP',
    host: 'smtp.mailgun.org',
    port: 587,
    encryption: 'tls',
    maxPerDay: 1000,
    defaultPerDay: 500,
    needsFromAddress: false,
  },
  {
    driver: 'ses',
    label: 'Amazon SES SMTP',
    host: 'email-smtp.us-east-1.amazonaws.com',
    port: 587,
    encryption: 'tls',
    maxPerDay: 1000,
    defaultPerDay: 200,
    needsFromAddress: false,
  },
  {
    driver: 'gmail',
    label: 'Gmail (app password)',
    host: 'smtp.gmail.com',
    port: 465,
    encryption: 'ssl',
    maxPerDay: 500,
    defaultPerDay: 500,
    needsFromAddress: false,
  },
  {
    driver: 'outlook',
    label: 'Outlook / Microsoft 365',
    host: 'smtp.office365.com',
    port: 587,
    encryption: 'tls',
    maxPerDay: 1000,
    defaultPerDay: 300,
    needsFromAddress: false,
  },
  {
    driver: 'zoho',
    label: 'Zoho Mail',
    host: 'smtp.zoho.com',
    port: 465,
    encryption: 'ssl',
    maxPerDay: 500,
    defaultPerDay: 500,
    needsFromAddress: false,
  },
  {
    driver: 'brevo',
    label: 'Brevo',
    host: 'smtp-relay.brevo.com',
    port: 587,
    encryption: 'tls',
    maxPerDay: 1000,
    defaultPerDay: 300,
    needsFromAddress: false,
  },
  {
    driver: 'postmark',
    label: 'Postmark',
    host: 'smtp.postmarkapp.com',
    port: 587,
    encryption: 'tls',
    maxPerDay: 1000,
    defaultPerDay: 500,
    needsFromAddress: false,
  },
];

export const findSmtpService = (driver: string | null | undefined) =>
  SMTP_SERVICES.find((service) => service.driver === driver);

/** RFC 1035: a domain name of at most 253 characters in its written (A-label) form. */
const MAX_DOMAIN = 253;

/**
 * A Mailgun sending domain in its stored form (lower-case A-labels), or null when it is not a
 * host name. It becomes a path segment of Mailgun's URLs (`/v3/{domain}/messages`, which
 * mailgun.js does not encode): `x.example.com/../../../v3/routes?` would have called another
 * Mailgun endpoint with the user's key. The one domain rule of list addresses decides
 * (`canonicalDomain`: UTS #46 through the URL host parser, slashes, `#`, `%`, `:`, `?`, `@`
 * and spaces refused before parsing; no IP address).
 */
export const mailgunDomainOf = (domain: string): string | null => {
  const canonical = canonicalDomain(domain.trim());
  return canonical !== null && canonical.length <= MAX_DOMAIN ? canonical : null;
};

const optionalText = (max = 255) =>
  z
    .string()
    .trim()
    .max(max)
    .optional()
    .transform((value) => value || undefined);

/**
 * `POST /api/settings/account/create-or-update[/:id]`. Fields depend on the provider;
 * secrets (apiKey, password) may be left out on edit to keep the stored ones.
 */
export const ZAccountForm = z
  .object({
    name: z.string().trim().min(1, { message: ACCOUNT_MESSAGES.nameRequired }).max(120),
    provider: z.enum(ACCOUNT_PROVIDERS),
    active: z.boolean().optional().default(false),
    domain: optionalText(),
    apiKey: optionalText(500),
    /** Mailgun's HTTP webhook signing key, to verify delivery events; kept when left out on edit. */
    webhookKey: optionalText(500),
    region: z.enum(MAILGUN_REGIONS).optional().default('us'),
    getList: z.boolean().optional().default(false),
    driver: optionalText(40),
    username: optionalText(320),
    password: z.string().max(500).optional(),
    host: optionalText(),
    port: z.coerce
      .number()
      .int()
      .min(1, { message: ACCOUNT_MESSAGES.portInvalid })
      .max(65535, { message: ACCOUNT_MESSAGES.portInvalid })
      .optional(),
    encryption: z.enum(SMTP_ENCRYPTIONS, { message: ACCOUNT_MESSAGES.encryptionRequired }).optional(),
    fromAddress: optionalText(320),
    /** The DKIM selector the SMTP server signs with (optional; the pre-send check looks its key up). */
    dkimSelector: z
      .string()
      .trim()
      .max(63)
      .regex(/^[A-Za-z0-9._-]*$/, { message: ACCOUNT_MESSAGES.dkimSelectorInvalid })
      .optional(),
    mailPerDay: z.coerce
      .number()
      .int()
      .min(1, { message: ACCOUNT_MESSAGES.mailPerDayInvalid })
      .max(MAIL_PER_DAY_MAX, { message: ACCOUNT_MESSAGES.mailPerDayInvalid })
      .optional(),
  })
  .superRefine((form, context) => {
    const requireField = (field: keyof typeof form, message: string) => {
      if (form[field] === undefined || form[field] === '') context.addIssue({ code: 'custom', path: [field], message });
    };
    if (form.provider === 'mailgun') {
      requireField('domain', ACCOUNT_MESSAGES.domainRequired);
      if (form.domain && mailgunDomainOf(form.domain) === null) {
        context.addIssue({ code: 'custom', path: ['domain'], message: ACCOUNT_MESSAGES.domainInvalid });
      }
      return;
    }
    if (form.provider === 'smtp') requireField('driver', ACCOUNT_MESSAGES.serviceRequired);
    requireField('username', ACCOUNT_MESSAGES.usernameRequired);
    if (form.provider === 'smtp') {
      requireField('host', ACCOUNT_MESSAGES.hostRequired);
      requireField('port', ACCOUNT_MESSAGES.portInvalid);
      requireField('encryption', ACCOUNT_MESSAGES.encryptionRequired);
    }
    const service = findSmtpService(form.driver);
    if (form.provider === 'smtp' && form.driver && !service && form.driver !== TEST_INBOX_DRIVER) {
      context.addIssue({ code: 'custom', path: ['driver'], message: ACCOUNT_MESSAGES.serviceRequired });
    }
    if (service?.needsFromAddress && !z.email().safeParse(form.fromAddress ?? '').success) {
      context.addIssue({ code: 'custom', path: ['fromAddress'], message: ACCOUNT_MESSAGES.fromAddressInvalid });
    } else if (form.fromAddress && !z.email().safeParse(form.fromAddress).success) {
      context.addIssue({ code: 'custom', path: ['fromAddress'], message: ACCOUNT_MESSAGES.fromAddressInvalid });
    }
    if (form.provider === 'google' && !z.email().safeParse(form.username ?? '').success) {
      context.addIssue({
        code: 'custom',
        path: ['username'],
        message: 'The Gmail address must be a valid email address.',
      });
    }
  })
  // A Mailgun domain is kept in its one form: lower case, internationalized names as A-labels.
  .transform((form) =>
    form.provider === 'mailgun' && form.domain ? { ...form, domain: mailgunDomainOf(form.domain)! } : form,
  );
export type TAccountForm = z.input<typeof ZAccountForm>;
export type TAccountFormParsed = z.output<typeof ZAccountForm>;

/** An account as the browser sees it: never a secret, only the API key's last characters. */
export const ZSendingAccount = z.object({
  id: z.number().int(),
  name: z.string(),
  provider: z.enum(ACCOUNT_PROVIDERS),
  active: z.boolean(),
  domain: z.string().nullable(),
  region: z.enum(MAILGUN_REGIONS).nullable(),
  apiKey: z.string().nullable(),
  /** The webhook signing key masked like the API key, or null when none is set. */
  webhookKey: z.string().nullable(),
  getList: z.boolean(),
  smtp: z.boolean(),
  google: z.boolean(),
  driver: z.string().nullable(),
  username: z.string().nullable(),
  host: z.string().nullable(),
  port: z.number().int().nullable(),
  encryption: z.enum(SMTP_ENCRYPTIONS).nullable(),
  fromAddress: z.string().nullable(),
  /** The DKIM selector of an SMTP account (issue 31), or null. */
  dkimSelector: z.string().nullable().optional(),
  mailPerDay: z.number().int(),
  /** The daily cap an operator set for this account, which applies instead of `mailPerDay`; null when none. */
  operatorMailPerDay: z.number().int().nullable(),
  /** The circuit breaker's lines (issue 31): a send pauses past them, in percent of its messages. */
  breakerBouncePercent: z.number(),
  breakerComplaintPercent: z.number(),
  hasPassword: z.boolean(),
  gmail_accounts: z.object({ email: z.string() }).nullable(),
  /** The domain of the addresses of this account's mailing lists (alias@listDomain). */
  listDomain: z.string(),
  created_at: z.string(),
});
export type TSendingAccount = z.infer<typeof ZSendingAccount>;

/** `POST /api/settings/account/send-test-smtp`. Without a password, `accountId` names the stored one. */
export const ZSendTestSmtpRequest = z.object({
  driver: z.string().trim().min(1, { message: ACCOUNT_MESSAGES.serviceRequired }).max(40),
  username: z.string().trim().min(1, { message: ACCOUNT_MESSAGES.usernameRequired }).max(320),
  password: z.string().max(500).optional().default(''),
  host: z.string().trim().min(1, { message: ACCOUNT_MESSAGES.hostRequired }).max(255),
  port: z.coerce
    .number()
    .int()
    .min(1, { message: ACCOUNT_MESSAGES.portInvalid })
    .max(65535, { message: ACCOUNT_MESSAGES.portInvalid }),
  encryption: z.enum(SMTP_ENCRYPTIONS, { message: ACCOUNT_MESSAGES.encryptionRequired }),
  fromAddress: z.string().trim().max(320).optional().default(''),
  accountId: z.number().int().positive().optional(),
});
export type TSendTestSmtpRequest = z.input<typeof ZSendTestSmtpRequest>;

/**
 * `POST /api/settings/account/create-google-account` (spec §7): the authorization code that
 * Google's JavaScript code client (popup mode) gave the page, traded here for the tokens.
 */
export const ZCreateGoogleAccountRequest = z.object({
  authCode: z.string().trim().min(1, { message: 'The Google authorization code is required.' }).max(2_000),
});
export type TCreateGoogleAccountRequest = z.input<typeof ZCreateGoogleAccountRequest>;

/** `GET /api/settings/account/get-providers`. */
export const ZAccountProviders = z.object({
  providers: z.array(z.enum(ACCOUNT_PROVIDERS)),
  enableGoogle: z.boolean(),
  googleTestMode: z.boolean(),
  googleTestUsers: z.array(z.string()),
  userEmail: z.string(),
  /** Whether this user's plan lets them add accounts other than the test inbox. */
  canCreate: z.boolean(),
  smtpServices: z.array(
    z.object({
      driver: z.string(),
      label: z.string(),
      host: z.string(),
      port: z.number().int(),
      encryption: z.enum(SMTP_ENCRYPTIONS),
      maxPerDay: z.number().int(),
      defaultPerDay: z.number().int(),
      needsFromAddress: z.boolean(),
    }),
  ),
  /** The built-in test inbox and this user's login to it; null when the operator turned it off. */
  testInbox: z
    .object({ host: z.string(), port: z.number().int(), username: z.string(), password: z.string() })
    .nullable(),
});
export type TAccountProviders = z.infer<typeof ZAccountProviders>;

export const ZTestInboxMessage = z.object({
  id: z.number().int(),
  mail_from: z.string(),
  rcpt_to: z.array(z.string()),
  subject: z.string(),
  size_bytes: z.number().int(),
  created_at: z.string(),
});
export type TTestInboxMessage = z.infer<typeof ZTestInboxMessage>;

export const ZTestInboxMessageDetail = ZTestInboxMessage.extend({
  text_body: z.string().nullable(),
  has_html: z.boolean(),
});
export type TTestInboxMessageDetail = z.infer<typeof ZTestInboxMessageDetail>;
