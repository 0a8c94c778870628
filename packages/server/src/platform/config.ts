import net from 'node:net';
import os from 'node:os';
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
  TRUST_PROXY: z.string().default('false'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SESSION_TTL_DAYS: z.coerce.number().int().min(1).max(365).default(30),
  LOGIN_LIMIT_PER_IP: z.coerce.number().int().min(1).default(30),
  LOGIN_LIMIT_PER_EMAIL: z.coerce.number().int().min(1).default(10),
  LOGIN_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(1).default(900),
  /** Local parts treated as generic addresses (comma-separated); empty keeps the built-in list. */
  GENERIC_EMAILS: z.string().default(''),
  /** The largest file a list import takes through the upload (not the browser-only 1.5 MB flow). */
  LIST_IMPORT_MAX_MB: z.coerce.number().int().min(1).max(2048).default(256),
  MEDIA_QUOTA_MB: z.coerce.number().int().min(1).max(100_000).default(200),
  /** How long a sending worker holds the recipients it claimed; a dead worker's claims go again after it. */
  SEND_LEASE_SECONDS: z.coerce.number().int().min(2).max(3600).default(120),
  SMTP_URL: z.string().optional(),
  MAIL_FROM: z.string().default('Sendwell <no-reply@localhost>'),
  WEB_DIST_DIR: z.string().optional(),
  DB_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  /** Threads for heavy message work (text parts, reading messages); default: the cores but one, 1 to 4. */
  MESSAGE_THREADS: z.coerce.number().int().min(1).max(64).optional(),
  /** How long one piece of that work may take before it is ended and reported (a send fails with the reason). */
  MESSAGE_WORK_TIMEOUT_SECONDS: z.coerce.number().min(1).max(3600).default(60),
  /** How long a request waits for a free database connection before it answers 503. */
  DB_ACQUIRE_TIMEOUT_SECONDS: z.coerce.number().min(0.1).max(600).default(10),
  /** PostgreSQL ends a session idle this long inside a transaction, releasing its locks and connection. */
  DB_IDLE_IN_TRANSACTION_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  /** The whole request (headers and body) must arrive within this; generous for 256 MB uploads on slow links. */
  HTTP_REQUEST_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(86_400).default(3600),
  /** The request line and headers must arrive within this. */
  HTTP_HEADERS_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(600).default(20),
  /** A socket with no bytes either way for this long is closed (a live upload keeps sending). */
  HTTP_IDLE_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  /** How long an idle keep-alive connection stays open between requests. */
  HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(600).default(72),
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
  /**
   * The ticket service API (spec §7) for other apps: a bearer key of at least 32 characters
   * and the project id they send in `X-Project-Id`. Unset: the service answers 404.
   */
  TICKET_SERVICE_KEY: z.string().min(32).optional(),
  TICKET_SERVICE_PROJECT_ID: z.string().min(1).max(100).optional(),
  /**
   * Bounces of SMTP and Gmail sends: each message's envelope sender becomes
   * `bounces+<VERP reference>@BOUNCE_DOMAIN` (VERP), and a worker receives the bounce
   * messages on BOUNCE_SMTP_PORT (point the domain's MX here). Unset: bounces go to the From
   * address.
   */
  BOUNCE_DOMAIN: z
    .string()
    .regex(/^[a-z0-9.-]+\.[a-z]{2,}$/i, 'a domain name such as bounces.example.com')
    .optional(),
  BOUNCE_SMTP_PORT: z.coerce.number().int().min(0).max(65535).default(2526),
  /**
   * Where feedback loops (Microsoft JMRP, Yahoo CFL, any ARF sender) send complaints: an
   * address the bounce receiver takes besides the VERP addresses. Default `fbl@BOUNCE_DOMAIN`.
   */
  FEEDBACK_ADDRESS: z.string().email('an email address such as fbl@bounces.example.com').optional(),
  /** Email verification's SMTP probe: the resolver (comma-separated `host:port`, default the system's), port, names and limits. */
  VERIFY_DNS_SERVERS: z.string().optional(),
  VERIFY_SMTP_PORT: z.coerce.number().int().min(1).max(65535).default(25),
  VERIFY_HELO_NAME: z.string().min(3).max(255).optional(),
  VERIFY_MAIL_FROM: z.string().email().optional(),
  VERIFY_STEP_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  VERIFY_GREYLIST_RETRIES: z.coerce.number().int().min(0).max(5).default(1),
  VERIFY_GREYLIST_DELAY_MS: z.coerce.number().int().min(0).max(600_000).default(30_000),
  /** Domains probed at once by one job. */
  VERIFY_CONCURRENCY: z.coerce.number().int().min(1).max(500).default(32),
  /** Connections to one mail server at once, counted across every job and worker process (R36). */
  VERIFY_CONNECTIONS_PER_DOMAIN: z.coerce.number().int().min(1).max(10).default(2),
  /** Lets the verification probe reach mail servers on loopback: local development and tests only (R35). */
  VERIFY_ALLOW_LOOPBACK: boolean.default(false),
  /**
   * Names that must exist (R48): before a verification job's verdicts count, and beside every
   * pre-send check, their MX records are asked of the resolver; when one is not found the
   * resolver is taken as broken, answers that say "no such domain" are not believed, and the
   * operator's System page says so.
   */
  DNS_CANARY_NAMES: z.string().default('gmail.com,outlook.com,yahoo.com'),
  /**
   * Spam tests: the test mailbox receives mail for `t-<token>@SPAM_TEST_DOMAIN` on
   * SPAM_TEST_SMTP_PORT (point the domain's MX here; 0 = any free port). Content engines
   * are asked when reachable (`off` to skip one); DNS blocklists and the authentication
   * checks use SPAM_TEST_DNS_SERVERS (default: VERIFY_DNS_SERVERS, else the system's).
   */
  SPAM_TEST_DOMAIN: z
    .string()
    .regex(/^[a-z0-9.-]+\.[a-z]{2,}$/i, 'a domain name such as spamtest.example.com')
    .default('spamtest.sendwell.local'),
  SPAM_TEST_SMTP_PORT: z.coerce.number().int().min(0).max(65535).default(2527),
  SPAM_TEST_MAILBOX: boolean.default(true),
  SPAM_TEST_CREDITS: z.coerce.number().int().min(0).max(1_000_000).default(100),
  SPAM_TEST_TIMEOUT_MINUTES: z.coerce.number().min(0.05).max(1440).default(5),
  SPAM_TEST_MAX_WAITING: z.coerce.number().int().min(1).max(1000).default(5),
  SPAM_TEST_DNS_SERVERS: z.string().optional(),
  SPAM_TEST_DNSBL: z.string().default('zen.spamhaus.org,bl.spamcop.net'),
  RSPAMD_URL: z.string().default('http://127.0.0.1:11333'),
  SPAMD_ADDRESS: z.string().default('127.0.0.1:783'),
  /** How long a content engine may take over one message before it is reported as timed out. */
  SPAM_ENGINE_TIMEOUT_SECONDS: z.coerce.number().min(0.1).max(300).default(10),
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
  /** Requests one API key may make per minute, across every web process (issue 48 §2). */
  API_KEY_RATE_LIMIT: z.coerce.number().int().min(1).max(1_000_000).default(600),
  /** Lets webhook URLs reach 127.0.0.1 (local development and tests only); private and metadata addresses stay refused. */
  WEBHOOK_ALLOW_LOOPBACK: boolean.default(false),
  /** How long a webhook receiver may take to answer one delivery. */
  WEBHOOK_TIMEOUT_SECONDS: z.coerce.number().min(0.1).max(60).default(10),
  /**
   * `off` for a single-company install: no plans, credits or Stripe on any screen or gate
   * (every user may do everything; verification and spam tests cost nothing).
   */
  BILLING: z.enum(['on', 'off']).default('on'),
  /** Who may register at /register: `open` (anyone), `closed` (the operator adds users with the admin CLI). */
  REGISTRATION: z.enum(['open', 'closed']).default('open'),
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
  /** Addresses and CIDRs of the proxies whose `X-Forwarded-*` headers count; false for none. */
  trustProxy: string[] | false;
  logLevel: string;
  sessionTtlDays: number;
  loginLimitPerIp: number;
  genericEmails: string[];
  listImportMaxBytes: number;
  /** Bytes of images one user's media library may hold. */
  mediaQuotaBytes: number;
  sendLeaseMs: number;
  loginLimitPerEmail: number;
  loginLimitWindowSeconds: number;
  smtpUrl: string | undefined;
  mailFrom: string;
  webDistDir: string;
  dbPoolSize: number;
  /** The CPU pool (`cpu-pool.ts`): its threads, and how long a task may run. */
  messageWork: { threads: number; timeoutMs: number };
  dbAcquireTimeoutMs: number;
  dbIdleInTransactionTimeoutMs: number;
  http: { requestTimeoutMs: number; headersTimeoutMs: number; idleTimeoutMs: number; keepAliveTimeoutMs: number };
  metricsToken: string | undefined;
  stripe: TStripeConfig | null;
  currency: string;
  captchaCost: number;
  registrationLimitPerIp: number;
  supportEmail: string | undefined;
  /** The built-in SMTP sink on loopback every user may send to while trying Sendwell; null when off. */
  testInbox: { port: number } | null;
  ticketService: { key: string; projectId: string } | null;
  /** VERP bounces and complaints; `feedbackAddress` is the feedback loops' address on the same receiver. */
  bounces: { domain: string; port: number; feedbackAddress: string } | null;
  spamTest: {
    domain: string;
    /** Where the test mailbox listens; null when this deployment does not run it. */
    port: number | null;
    credits: number;
    timeoutMs: number;
    maxWaiting: number;
    dnsServers: string[];
    dnsbl: string[];
    /** null: not asked. */
    rspamdUrl: string | null;
    spamd: { host: string; port: number } | null;
    engineTimeoutMs: number;
  };
  /** Names that must resolve (R48): a resolver that cannot find them is broken. */
  dnsCanaries: string[];
  verify: {
    dnsServers: string[];
    /** 25 in production; tests run loopback servers on other ports. */
    port: number;
    heloName: string;
    mailFrom: string;
    stepTimeoutMs: number;
    /** 4xx answers (greylisting) are asked again this many times, `greylistDelayMs` apart. */
    greylistRetries: number;
    greylistDelayMs: number;
    /** Domains probed at once. */
    concurrency: number;
    /** Connections to one mail server (MX host) at once, across jobs and processes. */
    connectionsPerServer: number;
    /** Whether mail servers on loopback may be asked (tests, local development); never other private addresses (R35). */
    allowLoopback: boolean;
  };
  /** Per user, whether or not this process runs the inbox (R30). */
  testInboxQuota: { messages: number; bytes: number };
  providerEventRetentionDays: number;
  /** Lets users' SMTP accounts reach loopback: local development only (R14). */
  allowLoopbackSmtp: boolean;
  /** Per API key, across processes. */
  apiKeyRateLimit: { limit: number; windowSeconds: number };
  webhooks: { allowLoopback: boolean; timeoutMs: number };
  /** False on a single-company install (`BILLING=off`): plans, credits and Stripe are nowhere. */
  isBillingOn: boolean;
  /** Whether visitors may register themselves; closed, the operator adds users (admin CLI). */
  isRegistrationOpen: boolean;
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

/** Names @fastify/proxy-addr expands into address ranges. */
const NAMED_PROXY_RANGES = ['loopback', 'linklocal', 'uniquelocal'];

const isProxyAddress = (entry: string): boolean => {
  if (NAMED_PROXY_RANGES.includes(entry)) return true;
  const [address = '', range, ...rest] = entry.split('/');
  const family = net.isIP(address);
  if (!family || rest.length > 0) return false;
  if (range === undefined) return true;
  if (net.isIP(range) === family) return true; // IP/netmask
  if (!/^\d{1,3}$/.test(range)) return false;
  return Number(range) <= (family === 4 ? 32 : 128);
};

/**
 * `TRUST_PROXY` lists the proxies in front of Sendwell. Only a hop from one of them may name
 * the client in `X-Forwarded-For`; from anyone else the header is ignored, so a client cannot
 * pick a fresh address for every request and reset the per-IP limits (R26). `true` (trust
 * every hop) is refused rather than guessed at: on a server reachable directly it hands
 * every limit to the client.
 */
const trustProxyConfig = (value: string): string[] | false => {
  const trimmed = value.trim().toLowerCase();
  if (['', 'false', '0', 'no'].includes(trimmed)) return false;
  if (['true', '1', 'yes'].includes(trimmed)) {
    throw new Error(
      'Invalid configuration: TRUST_PROXY: `true` would believe X-Forwarded-For from any client; ' +
        'list the addresses or CIDRs of your reverse proxies instead, e.g. TRUST_PROXY=127.0.0.1 or TRUST_PROXY=10.0.0.0/8,::1 ' +
        '(`loopback` stands for 127.0.0.0/8 and ::1)',
    );
  }
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const invalid = entries.filter((entry) => !isProxyAddress(entry));
  if (invalid.length > 0) {
    throw new Error(
      `Invalid configuration: TRUST_PROXY: ${invalid.join(', ')} is not an IP address, CIDR or one of ${NAMED_PROXY_RANGES.join(', ')}`,
    );
  }
  return entries;
};

/** `a, b ,c` → ['a', 'b', 'c']. */
const splitList = (value: string) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

/** `host:port` (or `host` alone, with the default port). */
const hostPort = (value: string, defaultPort: number) => {
  const match = /^(.*?)(?::(\d+))?$/.exec(value.trim())!;
  return { host: match[1] || '127.0.0.1', port: match[2] ? Number(match[2]) : defaultPort };
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
  // A single-company install has no payments: a key would only offer plans nobody may choose.
  if (e.BILLING === 'off') {
    throw new Error('Invalid configuration: BILLING=off has no payments; unset STRIPE_SECRET_KEY (or set BILLING=on)');
  }
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
    trustProxy: trustProxyConfig(e.TRUST_PROXY),
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
    mediaQuotaBytes: e.MEDIA_QUOTA_MB * 1024 * 1024,
    sendLeaseMs: e.SEND_LEASE_SECONDS * 1000,
    loginLimitPerEmail: e.LOGIN_LIMIT_PER_EMAIL,
    loginLimitWindowSeconds: e.LOGIN_LIMIT_WINDOW_SECONDS,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    webDistDir: path.resolve(e.WEB_DIST_DIR ?? new URL('../../../web/dist', import.meta.url).pathname),
    dbPoolSize: e.DB_POOL_SIZE,
    messageWork: {
      threads: e.MESSAGE_THREADS ?? Math.min(4, Math.max(1, os.availableParallelism() - 1)),
      timeoutMs: e.MESSAGE_WORK_TIMEOUT_SECONDS * 1000,
    },
    dbAcquireTimeoutMs: Math.round(e.DB_ACQUIRE_TIMEOUT_SECONDS * 1000),
    dbIdleInTransactionTimeoutMs: e.DB_IDLE_IN_TRANSACTION_TIMEOUT_SECONDS * 1000,
    http: {
      requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_SECONDS * 1000,
      headersTimeoutMs: Math.min(e.HTTP_HEADERS_TIMEOUT_SECONDS, e.HTTP_REQUEST_TIMEOUT_SECONDS) * 1000,
      idleTimeoutMs: e.HTTP_IDLE_TIMEOUT_SECONDS * 1000,
      keepAliveTimeoutMs: e.HTTP_KEEP_ALIVE_TIMEOUT_SECONDS * 1000,
    },
    metricsToken: e.METRICS_TOKEN,
    stripe: stripeConfig(e),
    currency: e.CURRENCY,
    captchaCost: e.CAPTCHA_COST,
    registrationLimitPerIp: e.REGISTRATION_LIMIT_PER_IP,
    supportEmail: e.SUPPORT_EMAIL,
    testInbox: e.TEST_INBOX ? { port: e.TEST_INBOX_PORT } : null,
    dnsCanaries: splitList(e.DNS_CANARY_NAMES).map((name) => name.toLowerCase()),
    verify: {
      dnsServers: (e.VERIFY_DNS_SERVERS ?? '')
        .split(',')
        .map((server) => server.trim())
        .filter(Boolean),
      port: e.VERIFY_SMTP_PORT,
      heloName: e.VERIFY_HELO_NAME ?? (e.PUBLIC_URL ? new URL(e.PUBLIC_URL).hostname : 'sendwell.local'),
      mailFrom:
        e.VERIFY_MAIL_FROM ??
        `verify@${e.VERIFY_HELO_NAME ?? (e.PUBLIC_URL ? new URL(e.PUBLIC_URL).hostname : 'sendwell.local')}`,
      stepTimeoutMs: e.VERIFY_STEP_TIMEOUT_MS,
      greylistRetries: e.VERIFY_GREYLIST_RETRIES,
      greylistDelayMs: e.VERIFY_GREYLIST_DELAY_MS,
      concurrency: e.VERIFY_CONCURRENCY,
      connectionsPerServer: e.VERIFY_CONNECTIONS_PER_DOMAIN,
      allowLoopback: e.VERIFY_ALLOW_LOOPBACK,
    },
    spamTest: {
      domain: e.SPAM_TEST_DOMAIN.toLowerCase(),
      port: e.SPAM_TEST_MAILBOX ? e.SPAM_TEST_SMTP_PORT : null,
      // Without billing a spam test costs nothing.
      credits: e.BILLING === 'off' ? 0 : e.SPAM_TEST_CREDITS,
      timeoutMs: Math.round(e.SPAM_TEST_TIMEOUT_MINUTES * 60_000),
      maxWaiting: e.SPAM_TEST_MAX_WAITING,
      dnsServers: splitList(e.SPAM_TEST_DNS_SERVERS ?? e.VERIFY_DNS_SERVERS ?? ''),
      dnsbl: splitList(e.SPAM_TEST_DNSBL),
      rspamdUrl: e.RSPAMD_URL === 'off' ? null : e.RSPAMD_URL.replace(/\/+$/, ''),
      spamd: e.SPAMD_ADDRESS === 'off' ? null : hostPort(e.SPAMD_ADDRESS, 783),
      engineTimeoutMs: Math.round(e.SPAM_ENGINE_TIMEOUT_SECONDS * 1000),
    },
    bounces: e.BOUNCE_DOMAIN
      ? {
          domain: e.BOUNCE_DOMAIN.toLowerCase(),
          port: e.BOUNCE_SMTP_PORT,
          feedbackAddress: (e.FEEDBACK_ADDRESS ?? `fbl@${e.BOUNCE_DOMAIN}`).toLowerCase(),
        }
      : null,
    ticketService:
      e.TICKET_SERVICE_KEY && e.TICKET_SERVICE_PROJECT_ID
        ? { key: e.TICKET_SERVICE_KEY, projectId: e.TICKET_SERVICE_PROJECT_ID }
        : null,
    testInboxQuota: { messages: e.TEST_INBOX_MAX_MESSAGES, bytes: e.TEST_INBOX_MAX_MB * 1024 * 1024 },
    providerEventRetentionDays: e.PROVIDER_EVENT_RETENTION_DAYS,
    allowLoopbackSmtp: e.ALLOW_LOOPBACK_SMTP,
    apiKeyRateLimit: { limit: e.API_KEY_RATE_LIMIT, windowSeconds: 60 },
    webhooks: { allowLoopback: e.WEBHOOK_ALLOW_LOOPBACK, timeoutMs: Math.round(e.WEBHOOK_TIMEOUT_SECONDS * 1000) },
    isBillingOn: e.BILLING === 'on',
    isRegistrationOpen: e.REGISTRATION === 'open',
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
