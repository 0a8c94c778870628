import {
  ACCOUNT_MESSAGES,
  findSmtpService,
  SMTP_SERVICES,
  type TAccountFormParsed,
  type TAccountProviders,
  TEST_INBOX_DRIVER,
  type TSendingAccount,
  type ZSendTestSmtpRequest,
} from '@sendwell/contracts';
import type { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import type { Executor } from '../../platform/db';
import { maskSecret } from '../../platform/encryption';
import { DomainError, fieldError, HttpError, notFound } from '../../platform/errors';
import { type TMailTransport, TransportError } from '../../providers/mail';
import { createMailgunTransport, mailgunDkimSelector } from '../../providers/mailgun';
import { createMailgunLists } from '../../providers/mailgun-lists';
import { createSmtpTransport, type TSmtpSettings } from '../../providers/smtp';
import { planRulesOf } from '../plans/plans.service';
import { createTestInboxTransport, TEST_INBOX_HOST, testInboxCredentials } from '../test-inbox/test-inbox.service';
import * as repository from './accounts.repository';
import { googleAccessToken, isGoogleOffered } from './google.service';
import { openSecret, sealSecret, type TSecretColumn } from './secrets';

const seal = sealSecret;
const open = openSecret;

const isTestInbox = (driver: string | null | undefined) => driver === TEST_INBOX_DRIVER;

const toAccount = (platform: TPlatform, row: repository.TAccountRow, userEmail: string): TSendingAccount => ({
  id: row.id,
  name: row.name,
  provider: row.provider,
  active: row.is_primary,
  domain: row.domain,
  region: row.region,
  apiKey: row.api_key_encrypted ? maskSecret(open(platform, row.id, 'api_key', row.api_key_encrypted)!) : null,
  webhookKey: row.webhook_key_encrypted
    ? maskSecret(open(platform, row.id, 'webhook_key', row.webhook_key_encrypted)!)
    : null,
  getList: row.import_lists,
  smtp: row.provider === 'smtp',
  google: row.provider === 'google',
  driver: row.driver,
  username: row.username,
  host: row.host,
  port: row.port,
  encryption: row.encryption,
  fromAddress: row.from_address,
  dkimSelector: row.dkim_selector,
  mailPerDay: row.mail_per_day,
  operatorMailPerDay: row.operator_mail_per_day,
  breakerBouncePercent: row.breaker_bounce_percent,
  breakerComplaintPercent: row.breaker_complaint_percent,
  hasPassword: row.password_encrypted !== null || row.oauth_refresh_token_encrypted !== null,
  gmail_accounts: row.provider === 'google' && row.google_email ? { email: row.google_email } : null,
  listDomain: accountDomain(row, userEmail),
  created_at: row.created_at.toISOString(),
});

const emailOf = async (platform: TPlatform, userId: number) =>
  (await platform.db.selectFrom('users').select('email').where('id', '=', userId).executeTakeFirstOrThrow()).email;

export const listAccounts = async (platform: TPlatform, userId: number) => {
  const [rows, userEmail] = await Promise.all([
    repository.listAccountRows(platform.db, userId),
    emailOf(platform, userId),
  ]);
  return rows.map((row) => toAccount(platform, row, userEmail));
};

const canCreateAccounts = async (platform: TPlatform, db: Executor, userId: number) =>
  (await planRulesOf(platform, db, userId)).allows_accounts;

/**
 * A plan without sending accounts has the test inbox only (R23): adding, changing or
 * connecting any other account is refused, whatever the path (create, update, Google).
 */
/** A user's sending accounts as stored, for the operator area. */
const ACCOUNT_NOT_FOUND = 'This sending account does not exist.';

/** The user's sending account (another user's, or none: 404); what other modules open an account by. */
export const requireAccountRow = async (db: Executor, userId: number, accountId: number) => {
  const row = await repository.findAccountRow(db, userId, accountId);
  if (!row) throw notFound(ACCOUNT_NOT_FOUND);
  return row;
};

export const accountRowsOfUser = (db: Executor, userId: number) => repository.listAccountRows(db, userId);

/** Any user's account by id, for the operator area (and the admin CLI). */
export const findAccountForOperator = (db: Executor, id: number) => repository.findAnyAccountRow(db, id);

/**
 * Sets the daily cap an operator allows an account, past the form's 1,000 (or below it);
 * null gives it back to the user's own Maximum Email per Day. The caller checks it is a
 * capped kind and audits it (the operator module).
 */
export const setOperatorDailyCap = (db: Executor, id: number, cap: number | null) =>
  repository.setOperatorMailPerDay(db, id, cap);

export const requireAccountsAllowed = async (
  platform: TPlatform,
  db: Executor,
  userId: number,
  driver: string | null,
) => {
  if (isTestInbox(driver) || (await canCreateAccounts(platform, db, userId))) return;
  throw new DomainError('upgrade-required', ACCOUNT_MESSAGES.upgrade);
};

/**
 * R27: a stored password is only ever sent to the host, port and username it was saved
 * for. Anything else (a host typed in the form, another login) needs the password again,
 * or one session could replay the stored secret to a server of its own.
 */
const isSavedDestination = (row: repository.TAccountRow, target: { host: string; port: number; username: string }) =>
  row.host !== null &&
  row.host.toLowerCase() === target.host.toLowerCase() &&
  row.port === target.port &&
  row.username === target.username;

export const getProviders = async (
  platform: TPlatform,
  userId: number,
  userEmail: string,
): Promise<TAccountProviders> => {
  const { google, testInbox } = platform.config;
  const isTestUser = google.testUsers.includes(userEmail.toLowerCase());
  const offerGoogle = isGoogleOffered(platform, userEmail);
  return {
    providers: ['mailgun', 'smtp', ...(offerGoogle ? (['google'] as const) : [])],
    enableGoogle: google.enabled && google.testUsers.length === 0,
    googleTestMode: google.enabled && google.testUsers.length > 0,
    googleTestUsers: isTestUser ? [userEmail.toLowerCase()] : [],
    userEmail,
    canCreate: await canCreateAccounts(platform, platform.db, userId),
    smtpServices: SMTP_SERVICES.map((service) => ({ ...service })),
    testInbox: testInbox
      ? { host: TEST_INBOX_HOST, port: testInbox.port, ...testInboxCredentials(platform, userId) }
      : null,
  };
};

/**
 * Where an SMTP account may connect. Loopback is refused (R14) except for the built-in
 * test inbox at its own port, or everywhere when the operator allows it for development.
 */
const smtpConnectOptions = (platform: TPlatform, settings: { driver: string; port: number }) => {
  const inbox = platform.config.testInbox;
  const isInbox = isTestInbox(settings.driver) && inbox !== null && settings.port === inbox.port;
  // Local development servers rarely have a real certificate; public servers must.
  const allowLoopback = platform.config.allowLoopbackSmtp || isInbox;
  return { allowLoopback, allowSelfSigned: allowLoopback };
};

/** The test inbox's fixed settings, whatever the form sent: users cannot point it elsewhere. */
const testInboxSettings = (platform: TPlatform, userId: number) => {
  const inbox = platform.config.testInbox;
  if (!inbox) throw fieldError('driver', 'The test inbox is turned off on this server.');
  return {
    host: TEST_INBOX_HOST,
    port: inbox.port,
    encryption: 'tls' as const,
    ...testInboxCredentials(platform, userId),
  };
};

const checkTransport = async (transport: TMailTransport) => {
  try {
    await transport.verify();
  } catch (error) {
    if (error instanceof TransportError) throw new HttpError(422, error.message, 'ACCOUNT_CHECK_FAILED');
    throw error;
  } finally {
    transport.close();
  }
};

const openSmtp = async (platform: TPlatform, driver: string, settings: TSmtpSettings) => {
  try {
    return await createSmtpTransport(settings, smtpConnectOptions(platform, { driver, port: settings.port }));
  } catch (error) {
    if (error instanceof TransportError) throw new HttpError(422, error.message, 'ACCOUNT_CHECK_FAILED');
    throw error;
  }
};

/**
 * Adds or changes an account. Its credentials are checked against the provider before
 * anything is stored (Mailgun: the key and domain; SMTP and Gmail: connect and log in),
 * then stored encrypted. A free plan may only add the test inbox.
 */
export const saveAccount = async (
  platform: TPlatform,
  userId: number,
  id: number | undefined,
  form: TAccountFormParsed,
): Promise<TSendingAccount> => {
  const existing = id === undefined ? undefined : await requireAccountRow(platform.db, userId, id);
  const driver = form.provider === 'google' ? 'gmail' : form.provider === 'smtp' ? form.driver! : null;
  // Every save, not only the first: otherwise a free plan saves its test inbox again as
  // Mailgun or a real SMTP server (R23). Checked before the provider is contacted.
  await requireAccountsAllowed(platform, platform.db, userId, driver);
  // A Mailgun key (and webhook key) is only ever sent to the Mailgun API at the base URL the
  // operator configured for the region, so a changed domain or region keeps it: Mailgun
  // checks it again with the new domain below. Nothing the user types decides where it goes.
  const stored = (column: TSecretColumn, value: Buffer | null | undefined) =>
    existing && existing.provider === form.provider ? open(platform, existing.id, column, value ?? null) : null;

  let secrets: { apiKey?: string; password?: string; webhookKey?: string } = {};
  let smtp: { host: string; port: number; encryption: 'tls' | 'ssl'; username: string } | null = null;
  if (form.provider === 'mailgun') {
    const apiKey = form.apiKey ?? stored('api_key', existing?.api_key_encrypted);
    if (!apiKey) throw fieldError('apiKey', ACCOUNT_MESSAGES.apiKeyRequired);
    await checkTransport(
      createMailgunTransport({ apiKey, domain: form.domain!, region: form.region }, platform.config.mailgunUrls),
    );
    const webhookKey = form.webhookKey ?? stored('webhook_key', existing?.webhook_key_encrypted) ?? undefined;
    secrets = { apiKey, ...(webhookKey ? { webhookKey } : {}) };
  } else {
    const inbox = isTestInbox(driver) ? testInboxSettings(platform, userId) : null;
    const { google: googleConfig } = platform.config;
    const google =
      form.provider === 'google'
        ? { host: googleConfig.smtpHost, port: googleConfig.smtpPort, encryption: 'ssl' as const }
        : null;
    smtp = {
      host: inbox?.host ?? google?.host ?? form.host!,
      port: inbox?.port ?? google?.port ?? form.port!,
      encryption: inbox?.encryption ?? google?.encryption ?? form.encryption!,
      username: inbox?.username ?? form.username!,
    };
    const storedPassword = () => {
      const secret = stored('password', existing?.password_encrypted);
      if (secret && !isSavedDestination(existing!, smtp!)) {
        throw fieldError('password', ACCOUNT_MESSAGES.passwordForChangedServer);
      }
      return secret;
    };
    const password = inbox?.password ?? (form.password || storedPassword());
    // A Google account connected by signing in keeps its tokens; it has no password to check.
    const isSignedInGoogle = !password && google && existing?.oauth_refresh_token_encrypted;
    if (!password && !isSignedInGoogle) throw fieldError('password', ACCOUNT_MESSAGES.passwordRequired);
    // Its tokens are for the mailbox that signed in, and are used for no other (R27).
    if (isSignedInGoogle && smtp.username.toLowerCase() !== existing!.google_email) {
      throw fieldError('username', ACCOUNT_MESSAGES.googleMailboxChanged);
    }
    if (isSignedInGoogle) {
      const accessToken = await googleAccessToken(platform, existing!);
      await checkTransport(await openSmtp(platform, driver!, { ...smtp, password: '', accessToken }));
    } else {
      await checkTransport(await openSmtp(platform, driver!, { ...smtp, password: password! }));
      secrets = { password: password! };
    }
  }

  const service = findSmtpService(driver);
  const mailPerDay =
    form.provider === 'mailgun'
      ? 0
      : Math.min(form.mailPerDay ?? service?.defaultPerDay ?? 500, service?.maxPerDay ?? 1000);
  const columns = {
    name: form.name,
    provider: form.provider,
    domain: form.provider === 'mailgun' ? form.domain!.toLowerCase() : null,
    region: form.provider === 'mailgun' ? form.region : null,
    import_lists: form.provider === 'mailgun' ? form.getList : false,
    driver,
    username: smtp?.username ?? null,
    host: smtp?.host ?? null,
    port: smtp?.port ?? null,
    encryption: smtp?.encryption ?? null,
    from_address: form.provider === 'mailgun' ? null : (form.fromAddress ?? null),
    dkim_selector: form.provider === 'smtp' && form.dkimSelector ? form.dkimSelector : null,
    mail_per_day: mailPerDay,
    google_email: form.provider === 'google' ? form.username!.toLowerCase() : null,
  };

  const accountId = await platform.db.transaction().execute(async (trx) => {
    const accountId = existing
      ? existing.id
      : (await repository.insertAccountRow(trx, { ...columns, user_id: userId })).id;
    const makePrimary = form.active || !(await repository.hasPrimary(trx, userId)) || (existing?.is_primary ?? false);
    if (makePrimary) await repository.clearPrimary(trx, userId, accountId);
    await repository.updateAccountRow(trx, userId, accountId, {
      ...columns,
      is_primary: makePrimary,
      api_key_encrypted: secrets.apiKey ? seal(platform, accountId, 'api_key', secrets.apiKey) : null,
      webhook_key_encrypted: secrets.webhookKey ? seal(platform, accountId, 'webhook_key', secrets.webhookKey) : null,
      password_encrypted: secrets.password ? seal(platform, accountId, 'password', secrets.password) : null,
      // A password replaces a Google sign-in; otherwise the tokens stay as they are.
      ...(secrets.password || form.provider !== 'google'
        ? { oauth_refresh_token_encrypted: null, oauth_access_token_encrypted: null, oauth_expires_at: null }
        : {}),
    });
    return accountId;
  });
  return getAccount(platform, userId, accountId);
};

export const getAccount = async (platform: TPlatform, userId: number, id: number) => {
  const row = await requireAccountRow(platform.db, userId, id);
  return toAccount(platform, row, await emailOf(platform, userId));
};

/** The circuit breaker's lines of one of the user's accounts (issue 31): no provider is asked. */
export const saveBreakerLines = async (
  platform: TPlatform,
  userId: number,
  id: number,
  lines: { breakerBouncePercent: number; breakerComplaintPercent: number },
) => {
  const updated = await repository.updateAccountRow(platform.db, userId, id, {
    breaker_bounce_percent: lines.breakerBouncePercent,
    breaker_complaint_percent: lines.breakerComplaintPercent,
  });
  if (Number(updated.numUpdatedRows) === 0) throw notFound(ACCOUNT_NOT_FOUND);
  return getAccount(platform, userId, id);
};

export const deleteAccount = async (platform: TPlatform, userId: number, id: number) => {
  const deleted = await repository.deleteAccountRow(platform.db, userId, id);
  if (Number(deleted.numDeletedRows) === 0) throw notFound(ACCOUNT_NOT_FOUND);
};

/**
 * The SMTP form's Test button: connect, log in and send a test message to the user.
 * Without a password in the form, `accountId` names the stored one.
 */
export const sendTestSmtp = async (
  platform: TPlatform,
  user: { id: number; email: string },
  request: z.output<typeof ZSendTestSmtpRequest>,
): Promise<string> => {
  const inbox = isTestInbox(request.driver) ? testInboxSettings(platform, user.id) : null;
  let password = inbox?.password ?? request.password;
  let oauth: { accessToken: string; host: string; port: number; username: string } | undefined;
  if (!password && request.accountId) {
    const account = await requireAccountRow(platform.db, user.id, request.accountId);
    password = open(platform, account.id, 'password', account.password_encrypted) ?? '';
    if (password && !isSavedDestination(account, request)) {
      throw new HttpError(422, ACCOUNT_MESSAGES.passwordForChangedServer, 'PASSWORD_REQUIRED');
    }
    // A Google sign-in account has no password: it proves itself with a fresh access token,
    // and only to the Gmail server it was connected for.
    if (!password && account.oauth_refresh_token_encrypted) {
      oauth = {
        accessToken: await googleAccessToken(platform, account),
        host: account.host ?? platform.config.google.smtpHost,
        port: account.port ?? platform.config.google.smtpPort,
        username: account.google_email ?? account.username ?? request.username,
      };
    }
  }
  if (!password && !oauth) throw new HttpError(422, ACCOUNT_MESSAGES.passwordRequired, 'PASSWORD_REQUIRED');
  const settings: TSmtpSettings = {
    host: inbox?.host ?? oauth?.host ?? request.host,
    port: inbox?.port ?? oauth?.port ?? request.port,
    encryption: inbox?.encryption ?? (oauth ? 'ssl' : request.encryption),
    username: inbox?.username ?? oauth?.username ?? request.username,
    password,
    ...(oauth ? { accessToken: oauth.accessToken } : {}),
  };
  const transport = await openSmtp(platform, request.driver, settings);
  try {
    const from = request.fromAddress || (request.username.includes('@') ? request.username : user.email);
    const [result] = await transport.send([
      {
        from,
        to: user.email,
        subject: 'Sendwell SMTP test',
        text: `This message confirms that Sendwell can send through ${settings.host}:${settings.port} as ${settings.username}.\n`,
        html: `<p>This message confirms that Sendwell can send through <b>${settings.host}:${settings.port}</b> as <b>${settings.username}</b>.</p>`,
      },
    ]);
    if (!result?.accepted)
      throw new HttpError(422, result?.error ?? 'The test message was not accepted.', 'SMTP_TEST_FAILED');
    return `The connection works. A test message was sent to ${user.email}.`;
  } finally {
    transport.close();
  }
};

/** The transport for one of a user's accounts, for the sending, campaign and testing modules. */
export const openAccountTransport = async (
  platform: TPlatform,
  userId: number,
  accountId: number,
  { connections = 1 }: { connections?: number } = {},
) => {
  const row = await requireAccountRow(platform.db, userId, accountId);
  // Every send goes through this door: an account kept from a paid period sends nothing
  // once the plan no longer allows accounts (R23).
  await requireAccountsAllowed(platform, platform.db, userId, row.driver);
  if (row.provider === 'mailgun') {
    return createMailgunTransport(
      {
        apiKey: open(platform, row.id, 'api_key', row.api_key_encrypted)!,
        domain: row.domain!,
        region: row.region ?? 'us',
      },
      platform.config.mailgunUrls,
    );
  }
  // Test-inbox mail is kept by whichever worker sends it (not every worker hosts the sink).
  if (isTestInbox(row.driver)) {
    testInboxSettings(platform, userId);
    return createTestInboxTransport(platform, userId);
  }
  const accessToken = row.oauth_refresh_token_encrypted ? await googleAccessToken(platform, row) : undefined;
  return createSmtpTransport(
    {
      host: row.host!,
      port: row.port!,
      encryption: row.encryption ?? 'tls',
      username: row.username!,
      password: open(platform, row.id, 'password', row.password_encrypted) ?? '',
      ...(accessToken ? { accessToken } : {}),
    },
    { ...smtpConnectOptions(platform, { driver: row.driver ?? 'smtp', port: row.port! }), connections },
  );
};

/** Mailgun's mailing lists API with a Mailgun account's key; null for other kinds. */
export const openMailgunLists = (platform: TPlatform, row: repository.TAccountRow) =>
  row.provider === 'mailgun' && row.api_key_encrypted
    ? createMailgunLists(
        { apiKey: open(platform, row.id, 'api_key', row.api_key_encrypted)!, region: row.region ?? 'us' },
        platform.config.mailgunUrls,
      )
    : null;

/**
 * The domain a list address on this account uses: the Mailgun domain, else the domain of
 * the account's sending address (From Address, username or Gmail address), else the
 * user's own email domain.
 */
export const accountDomain = (row: repository.TAccountRow, userEmail: string) => {
  if (row.provider === 'mailgun' && row.domain) return row.domain.toLowerCase();
  const address = [row.from_address, row.username, row.google_email, userEmail].find((value) => value?.includes('@'));
  return (address ?? userEmail).split('@').pop()!.toLowerCase();
};

/** What other modules read of accounts: rows by id and the kinds a user has. */
export {
  findAccountKinds,
  findAccountOwners,
  findAccountRow,
  listAccountRows,
  type TAccountRow,
} from './accounts.repository';

/** A Mailgun account's webhook signing key (opened), or null when it has none or is no Mailgun account. */
export const findWebhookKey = async (platform: TPlatform, accountId: number) => {
  const account = await repository.findSealedWebhookKey(platform.db, accountId);
  return account ? open(platform, account.id, 'webhook_key', account.webhook_key_encrypted) : null;
};

/** Selectors Mailgun's domain API reported, per process (a platform stands for one), for a while. */
const mailgunSelectors = new WeakMap<TPlatform, Map<string, { selector: string | null; at: number }>>();
const MAILGUN_SELECTOR_TTL_MS = 10 * 60_000;

/**
 * The DKIM selector an account signs with, for the pre-send check (issue 31 §1): an SMTP
 * account's own (its DKIM selector field), or the one Mailgun's domain API reports for a
 * Mailgun account's domain (`GET /v3/domains/{domain}`, its `<selector>._domainkey` record;
 * kept ten minutes). `problem` says why Mailgun could not be asked; never throws.
 */
export const accountDkimSelector = async (
  platform: TPlatform,
  row: repository.TAccountRow,
): Promise<{ selector: string | null; source: 'account' | 'mailgun' | null; problem?: string }> => {
  if (row.provider !== 'mailgun') {
    return row.dkim_selector ? { selector: row.dkim_selector, source: 'account' } : { selector: null, source: null };
  }
  const known = mailgunSelectors.get(platform) ?? new Map<string, { selector: string | null; at: number }>();
  mailgunSelectors.set(platform, known);
  const key = `${row.id}:${row.domain}:${row.region}`;
  const cached = known.get(key);
  if (cached && Date.now() - cached.at < MAILGUN_SELECTOR_TTL_MS)
    return { selector: cached.selector, source: 'mailgun' };
  const apiKey = row.api_key_encrypted ? open(platform, row.id, 'api_key', row.api_key_encrypted) : null;
  if (!apiKey) return { selector: null, source: null, problem: 'the account has no API key' };
  try {
    const selector = await mailgunDkimSelector(
      {
        apiKey,
        domain: row.domain!,
        region: row.region ?? 'us',
      },
      platform.config.mailgunUrls,
    );
    known.set(key, { selector, at: Date.now() });
    return { selector, source: 'mailgun' };
  } catch (error) {
    return { selector: null, source: null, problem: (error as Error).message };
  }
};
