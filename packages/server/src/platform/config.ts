import path from 'node:path';
import { GENERIC_EMAIL_PREFIXES } from '@sendwell/contracts';
import { z } from 'zod';

export const PROCESS_ROLES = ['all', 'web', 'worker'] as const;
export type TProcessRole = (typeof PROCESS_ROLES)[number];

const boolean = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => ['true', '1', 'yes'].includes(value));

/**
 * Every setting Sendwell reads from the environment. The README's configuration table
 * lists the same names and defaults; keep them in step.
 */
const ZEnvironment = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  SENDWELL_ROLE: z.enum(PROCESS_ROLES).default('all'),
  DATABASE_URL: z.string().url().optional(),
  DATA_DIR: z.string().default('./data'),
  EMBEDDED_PG_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
  PUBLIC_URL: z.string().url().optional(),
  ALLOWED_ORIGINS: z.string().default(''),
  SECRET_KEY: z.string().min(32).optional(),
  TRUST_PROXY: boolean.default(false),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SESSION_TTL_DAYS: z.coerce.number().int().min(1).max(365).default(30),
  LOGIN_LIMIT_PER_IP: z.coerce.number().int().min(1).default(30),
  LOGIN_LIMIT_PER_EMAIL: z.coerce.number().int().min(1).default(10),
  LOGIN_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(1).default(900),
  /** Local parts treated as generic addresses (comma-separated); empty keeps the built-in list. */
  GENERIC_EMAILS: z.string().default(''),
  /** The largest file a list import takes through the upload (not the browser-only 1.5 MB flow). */
  LIST_IMPORT_MAX_MB: z.coerce.number().int().min(1).max(2048).default(256),
  /** How long a sending worker holds the recipients it claimed; a dead worker's claims go again after it. */
  SEND_LEASE_SECONDS: z.coerce.number().int().min(2).max(3600).default(120),
  SMTP_URL: z.string().optional(),
  MAIL_FROM: z.string().default('Sendwell <no-reply@localhost>'),
  WEB_DIST_DIR: z.string().optional(),
  DB_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  METRICS_TOKEN: z.string().min(16).optional(),
  STRIPE_SECRET_KEY: z.string().min(1).optional(),
  STRIPE_PUBLISHABLE_KEY: z.string().min(1).optional(),
  STRIPE_WEBHOOK_SECRET: z.string().min(1).optional(),
  STRIPE_API_URL: z.string().url().optional(),
  CURRENCY: z
    .string()
    .regex(/^[a-z]{3}$/)
    .default('usd'),
  CAPTCHA_COST: z.coerce.number().int().min(1).max(1_000_000).default(1_000),
  REGISTRATION_LIMIT_PER_IP: z.coerce.number().int().min(1).default(10),
  SUPPORT_EMAIL: z.string().email().optional(),
  TEST_INBOX: boolean.default(true),
  TEST_INBOX_PORT: z.coerce.number().int().min(0).max(65535).default(2525),
  /** Each user's test inbox keeps at most this many messages and megabytes; the oldest go first (R30). */
  TEST_INBOX_MAX_MESSAGES: z.coerce.number().int().min(1).max(1_000_000).default(500),
  TEST_INBOX_MAX_MB: z.coerce.number().int().min(1).max(10_240).default(50),
  /**
   * Applied provider events (Mailgun's) are deleted after this many days (R30). At least one:
   * an event id must outlive Mailgun's retries (8 hours) so a retry is still recognised.
   */
  PROVIDER_EVENT_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  ALLOW_LOOPBACK_SMTP: boolean.default(false),
  MAILGUN_US_URL: z.string().url().default('https://api.mailgun.net'),
  MAILGUN_EU_URL: z.string().url().default('https://api.eu.mailgun.net'),
  GOOGLE_CLIENT_ID: z.string().min(1).optional(),
  GOOGLE_CLIENT_SECRET: z.string().min(1).optional(),
  GOOGLE_AUTH_URL: z.string().url().default('https://accounts.google.com/o/oauth2/v2/auth'),
  GOOGLE_TOKEN_URL: z.string().url().default('https://oauth2.googleapis.com/token'),
  GOOGLE_USERINFO_URL: z.string().url().default('https://openidconnect.googleapis.com/v1/userinfo'),
  GOOGLE_SMTP_HOST: z.string().default('smtp.gmail.com'),
  GOOGLE_SMTP_PORT: z.coerce.number().int().min(1).max(65535).default(465),
  GOOGLE_TEST_USERS: z.string().default(''),
});

export type TConfig = {
  port: number;
  host: string;
  role: TProcessRole;
  databaseUrl: string | undefined;
  dataDir: string;
  embeddedPgPort: number;
  publicUrl: string | undefined;
  allowedOrigins: string[];
  secretKey: string | undefined;
  trustProxy: boolean;
  logLevel: string;
  sessionTtlDays: number;
  loginLimitPerIp: number;
  genericEmails: string[];
  listImportMaxBytes: number;
  sendLeaseMs: number;
  loginLimitPerEmail: number;
  loginLimitWindowSeconds: number;
  smtpUrl: string | undefined;
  mailFrom: string;
  webDistDir: string;
  dbPoolSize: number;
  metricsToken: string | undefined;
  stripe: TStripeConfig | null;
  currency: string;
  captchaCost: number;
  registrationLimitPerIp: number;
  supportEmail: string | undefined;
  /** The built-in SMTP sink on loopback every user may send to while trying Sendwell; null when off. */
  testInbox: { port: number } | null;
  /** Per user, whether or not this process runs the inbox (R30). */
  testInboxQuota: { messages: number; bytes: number };
  providerEventRetentionDays: number;
  /** Lets users' SMTP accounts reach loopback: local development only (R14). */
  allowLoopbackSmtp: boolean;
  mailgunUrls: { us: string; eu: string };
  google: TGoogleConfig;
};

/**
 * Google sign-in for Gmail accounts (OAuth 2 authorization code flow). Enabled with a
 * client id and secret; in test mode (GOOGLE_TEST_USERS set) only those emails see it.
 */
export type TGoogleConfig = {
  enabled: boolean;
  clientId: string | undefined;
  clientSecret: string | undefined;
  authUrl: string;
  tokenUrl: string;
  userinfoUrl: string;
  smtpHost: string;
  smtpPort: number;
  testUsers: string[];
};

/** Present only when the operator configured Stripe; free plans work without it. */
export type TStripeConfig = {
  secretKey: string;
  publishableKey: string;
  webhookSecret: string | undefined;
  /** Another API base (a local contract fake in tests); Stripe's own when unset. */
  apiUrl: URL | undefined;
};

const roleFromArgs = (argv: readonly string[]): string | undefined => {
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;
    if (arg.startsWith('--role=')) return arg.slice('--role='.length);
    if (arg === '--role') return argv[index + 1];
  }
  return undefined;
};

const stripeConfig = (e: z.infer<typeof ZEnvironment>): TStripeConfig | null => {
  if (!e.STRIPE_SECRET_KEY) return null;
  // The card field needs the publishable key; a secret key alone would offer paid plans nobody can buy.
  if (!e.STRIPE_PUBLISHABLE_KEY) {
    throw new Error('Invalid configuration: STRIPE_PUBLISHABLE_KEY is required when STRIPE_SECRET_KEY is set');
  }
  return {
    secretKey: e.STRIPE_SECRET_KEY,
    publishableKey: e.STRIPE_PUBLISHABLE_KEY,
    webhookSecret: e.STRIPE_WEBHOOK_SECRET,
    apiUrl: e.STRIPE_API_URL ? new URL(e.STRIPE_API_URL) : undefined,
  };
};

/**
 * Reads the configuration once at start-up. A bad value stops the process with the
 * variable's name, rather than surfacing later as a confusing failure.
 */
export const loadConfig = (env: NodeJS.ProcessEnv = process.env, argv: readonly string[] = process.argv): TConfig => {
  const role = roleFromArgs(argv);
  const parsed = ZEnvironment.safeParse({ ...env, ...(role ? { SENDWELL_ROLE: role } : {}) });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new Error(`Invalid configuration: ${problems}`);
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    role: e.SENDWELL_ROLE,
    databaseUrl: e.DATABASE_URL,
    dataDir: path.resolve(e.DATA_DIR),
    embeddedPgPort: e.EMBEDDED_PG_PORT,
    publicUrl: e.PUBLIC_URL?.replace(/\/+$/, ''),
    allowedOrigins: e.ALLOWED_ORIGINS.split(',')
      .map((origin) => origin.trim())
      .filter(Boolean),
    secretKey: e.SECRET_KEY,
    trustProxy: e.TRUST_PROXY,
    logLevel: e.LOG_LEVEL,
    sessionTtlDays: e.SESSION_TTL_DAYS,
    loginLimitPerIp: e.LOGIN_LIMIT_PER_IP,
    genericEmails: e.GENERIC_EMAILS.trim()
      ? [
          ...new Set(
            e.GENERIC_EMAILS.split(',')
              .map((name) => name.trim().toLowerCase())
              .filter(Boolean),
          ),
        ]
      : [...GENERIC_EMAIL_PREFIXES],
    listImportMaxBytes: e.LIST_IMPORT_MAX_MB * 1024 * 1024,
    sendLeaseMs: e.SEND_LEASE_SECONDS * 1000,
    loginLimitPerEmail: e.LOGIN_LIMIT_PER_EMAIL,
    loginLimitWindowSeconds: e.LOGIN_LIMIT_WINDOW_SECONDS,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    webDistDir: path.resolve(e.WEB_DIST_DIR ?? new URL('../../../web/dist', import.meta.url).pathname),
    dbPoolSize: e.DB_POOL_SIZE,
    metricsToken: e.METRICS_TOKEN,
    stripe: stripeConfig(e),
    currency: e.CURRENCY,
    captchaCost: e.CAPTCHA_COST,
    registrationLimitPerIp: e.REGISTRATION_LIMIT_PER_IP,
    supportEmail: e.SUPPORT_EMAIL,
    testInbox: e.TEST_INBOX ? { port: e.TEST_INBOX_PORT } : null,
    testInboxQuota: { messages: e.TEST_INBOX_MAX_MESSAGES, bytes: e.TEST_INBOX_MAX_MB * 1024 * 1024 },
    providerEventRetentionDays: e.PROVIDER_EVENT_RETENTION_DAYS,
    allowLoopbackSmtp: e.ALLOW_LOOPBACK_SMTP,
    mailgunUrls: { us: e.MAILGUN_US_URL.replace(/\/+$/, ''), eu: e.MAILGUN_EU_URL.replace(/\/+$/, '') },
    google: {
      enabled: Boolean(e.GOOGLE_CLIENT_ID && e.GOOGLE_CLIENT_SECRET),
      clientId: e.GOOGLE_CLIENT_ID,
      clientSecret: e.GOOGLE_CLIENT_SECRET,
      authUrl: e.GOOGLE_AUTH_URL,
      tokenUrl: e.GOOGLE_TOKEN_URL,
      userinfoUrl: e.GOOGLE_USERINFO_URL,
      smtpHost: e.GOOGLE_SMTP_HOST,
      smtpPort: e.GOOGLE_SMTP_PORT,
      testUsers: e.GOOGLE_TEST_USERS.split(',')
        .map((email) => email.trim().toLowerCase())
        .filter(Boolean),
    },
  };
};

export const hasWeb = (role: TProcessRole): boolean => role === 'all' || role === 'web';
export const hasWorker = (role: TProcessRole): boolean => role === 'all' || role === 'worker';
