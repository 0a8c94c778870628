import { SMTP_SERVICES, type TAccountProviders, type TSendingAccount } from '@sendwell/contracts';

/** `GET /api/settings/account/get-providers` for a paid user on a server running the test inbox. */
export const buildProviders = (overrides: Partial<TAccountProviders> = {}): TAccountProviders => ({
  providers: ['mailgun', 'smtp'],
  enableGoogle: false,
  googleTestMode: false,
  googleTestUsers: [],
  userEmail: 'ada@example.com',
  canCreate: true,
  smtpServices: SMTP_SERVICES.map((service) => ({ ...service })),
  testInbox: { host: '127.0.0.1', port: 2525, username: 'user-1', password: 'inbox-secret' },
  ...overrides,
});

/** An account as `GET /api/settings/accounts` lists it: secrets masked or absent. */
export const buildAccount = (overrides: Partial<TSendingAccount> = {}): TSendingAccount => ({
  id: 1,
  name: 'Newsletter',
  provider: 'mailgun',
  active: false,
  domain: 'mg.example.com',
  region: 'us',
  apiKey: '••••••••abc123',
  webhookKey: null,
  getList: false,
  smtp: false,
  google: false,
  driver: null,
  username: null,
  host: null,
  port: null,
  encryption: null,
  fromAddress: null,
  mailPerDay: 0,
  operatorMailPerDay: null,
  breakerBouncePercent: 5,
  breakerComplaintPercent: 0.1,
  hasPassword: false,
  gmail_accounts: null,
  listDomain: 'mg.example.com',
  created_at: '2026-11-20T10:00:00.000Z',
  ...overrides,
});

export const buildSmtpAccount = (overrides: Partial<TSendingAccount> = {}): TSendingAccount =>
  buildAccount({
    provider: 'smtp',
    smtp: true,
    domain: null,
    region: null,
    apiKey: null,
    driver: 'smtp',
    username: 'mailer',
    host: 'smtp.example.com',
    port: 587,
    encryption: 'tls',
    mailPerDay: 500,
    hasPassword: true,
    listDomain: 'example.com',
    ...overrides,
  });
