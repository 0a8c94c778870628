import type { TListImport, TMailingList, TMember } from '@sendwell/contracts';

/** A list as `GET /api/mailing-lists` and `get-list-info` describe it. */
export const buildList = (overrides: Partial<TMailingList> = {}): TMailingList => ({
  id: 5,
  list_id: 'news@mg.example.com',
  account_id: 1,
  account_name: 'Newsletter',
  provider: 'mailgun',
  address: 'news@mg.example.com',
  alias: 'news',
  domain: 'mg.example.com',
  name: 'Weekly news',
  description: '',
  mailing_list: 'news@mg.example.com',
  members_count: 3,
  subscribed: 2,
  verified_count: 0,
  unverified_subscribers_count: 2,
  verified: false,
  verify_status: 'unverified',
  verified_at: null,
  double_opt_in: true,
  created_at: '2026-11-20T10:00:00.000Z',
  ...overrides,
});

export const buildMember = (overrides: Partial<TMember> = {}): TMember => ({
  id: 3,
  email: 'ada@example.com',
  fullname: 'Ada Lovelace',
  subscribe: 1,
  verified: false,
  verified_at: null,
  list_id: 5,
  account_id: 1,
  fields: {},
  unconfirmed: false,
  created_at: '2026-11-21T09:00:00.000Z',
  ...overrides,
});

/** A background import as `GET /api/mailing-lists/imports/{id}` describes it. */
export const buildImport = (overrides: Partial<TListImport> = {}): TListImport => ({
  id: 11,
  list_id: 5,
  list_address: 'news@mg.example.com',
  file_name: 'members.csv',
  status: 'queued',
  stage: 'reading',
  bytes_total: 1000,
  bytes_read: 0,
  rows_read: 0,
  added: 0,
  updated: 0,
  skipped: 0,
  duplicates: 0,
  skipped_reasons: {},
  error: null,
  has_report: false,
  created_at: '2026-11-22T10:00:00.000Z',
  finished_at: null,
  ...overrides,
});
