import type { TSendAccount, TSendEmailContent, TSendList, TSendProgress, TTemplate } from '@sendwell/contracts';

/** Builders for the Send Email tests: the shapes the server answers with. */

export const buildSendAccount = (overrides: Partial<TSendAccount> = {}): TSendAccount => ({
  id: 1,
  name: 'Newsletter',
  provider: 'mailgun',
  domain: 'mg.example.com',
  fromAddress: '',
  active: true,
  ...overrides,
});

export const buildSmtpSendAccount = (overrides: Partial<TSendAccount> = {}): TSendAccount =>
  buildSendAccount({
    id: 2,
    name: 'Office',
    provider: 'smtp',
    domain: '',
    fromAddress: 'office@example.com',
    ...overrides,
  });

export const buildSendList = (overrides: Partial<TSendList> = {}): TSendList => ({
  id: 5,
  name: 'Weekly news',
  address: 'news@example.com',
  subscribed: 120,
  unverified_subscribers_count: 0,
  ...overrides,
});

export const buildTemplate = (overrides: Partial<TTemplate> = {}): TTemplate => ({
  id: 1,
  name: 'Simple announcement',
  subject: 'News from us',
  html: '<!doctype html><html><body><p>Hello {{name::there}},</p></body></html>',
  document: null,
  description: '',
  builtIn: true,
  ...overrides,
});

export const buildContent = (overrides: Partial<TSendEmailContent> = {}): TSendEmailContent => ({
  chosenAccount: 1,
  templates: [buildTemplate()],
  accounts: [buildSendAccount()],
  mailingLists: [buildSendList(), buildSendList({ id: 6, name: 'VIP', address: 'vip@example.com', subscribed: 8 })],
  isSmtp: false,
  smtpLimit: 0,
  dailyCount: 0,
  totalCredit: 1000,
  usedCredit: 0,
  allowsScheduling: true,
  timeZone: 'America/New_York',
  spamTestCredits: 100,
  ...overrides,
});

/** An SMTP account's page: the account's cap and what it has sent today. */
export const buildSmtpContent = (overrides: Partial<TSendEmailContent> = {}): TSendEmailContent =>
  buildContent({
    chosenAccount: 2,
    accounts: [buildSmtpSendAccount()],
    isSmtp: true,
    smtpLimit: 500,
    dailyCount: 0,
    ...overrides,
  });

export const buildProgress = (overrides: Partial<TSendProgress> = {}): TSendProgress => ({
  id: 42,
  status: 'sending',
  subject: 'Hello',
  from: 'Sam <news@example.com>',
  to: 'Weekly news',
  recipients_count: 3,
  sent_count: 1,
  failed_count: 0,
  unknown_count: 0,
  waiting_count: 2,
  delivered_count: 0,
  opened_count: 0,
  clicked_count: 0,
  complained_count: 0,
  unsubscribed_count: 0,
  note: null,
  deliver_at: null,
  started_at: '2026-11-22T10:00:00.000Z',
  finished_at: null,
  created_at: '2026-11-22T10:00:00.000Z',
  ...overrides,
});
