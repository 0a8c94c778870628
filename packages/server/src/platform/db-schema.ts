import type { ColumnType, Generated } from 'kysely';

/**
 * The tables as Kysely sees them. Keep in step with `migrations/`.
 * `Generated` columns are filled by the database; timestamps come back as Date.
 *
 * About 930 lines on purpose: it is one declaration (the `Database` type every query is
 * checked against), a mirror of the migrations read beside them, with no logic; which
 * module owns each table is `test/module-boundaries.test.ts`'s `OWNER`.
 */
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;

/** The columns most tables start with: a serial id, and the user the row belongs to. */
type UserRow = { id: Generated<number>; user_id: number };
/** When the row was made (never updated) and last changed: most tables have both. */
type Timestamps = { created_at: CreatedAt; updated_at: Timestamp };
/** A jsonb column read as `T` and written as JSON text (`JSON.stringify`). */
type JsonColumn<T> = ColumnType<T, string | undefined, string>;
/** The builder's document (issue 46), jsonb written as the value itself; null for HTML written by hand. */
type BuilderDocument = ColumnType<unknown | null, unknown | null | undefined, unknown | null>;

export type MediaFilesTable = Timestamps & {
  hash: string;
  content_type: string;
  bytes: Buffer;
  size: number;
};

export type MediaTable = UserRow &
  Timestamps & {
    hash: string;
    name: string;
    width: number;
    height: number;
    size: number;
  };

export type PlansTable = Timestamps & {
  id: Generated<number>;
  name: string;
  plan_name: string;
  price_cents: Generated<number>;
  is_free: Generated<boolean>;
  tax_percent: ColumnType<string, string | number | undefined, string | number>;
  allows_scheduling: Generated<boolean>;
  allows_accounts: Generated<boolean>;
  monthly_credits: Generated<number>;
  trial_credits: Generated<number>;
  stripe_price_id: string | null;
};

export type UsersTable = Timestamps & {
  id: Generated<number>;
  name: string;
  email: string;
  password_hash: string;
  plan_id: number;
  time_zone: Generated<string>;
  referred_by: string | null;
  stripe_customer_id: string | null;
  stripe_subscription_id: string | null;
  subscription_status: string | null;
  current_period_end: Date | null;
  /** 'operator' reaches the operator area (granted by the admin command). */
  role: Generated<'user' | 'operator'>;
  /** A disabled user cannot sign in. */
  disabled_at: Date | null;
};

export type VerificationJobsTable = UserRow &
  Timestamps & {
    /** A list verification's list ("Verify Your List"); null for the tool's. */
    list_id: number | null;
    status: Generated<'draft' | 'queued' | 'running' | 'finished' | 'failed'>;
    total: Generated<number>;
    duplicates: Generated<number>;
    already_checked: Generated<number>;
    recheck: Generated<boolean>;
    checked: Generated<number>;
    valid: Generated<number>;
    invalid: Generated<number>;
    unknown: Generated<number>;
    credits_charged: Generated<number>;
    credits_refunded: Generated<number>;
    error: string | null;
    /** What the user must know about the verdicts beyond the counts (a broken resolver, R48). */
    notice: string | null;
    finished_at: Date | null;
    /** The storage id of the send waiting for this list's verification (the verify-lists upsell); null otherwise. */
    storage_id: string | null;
  };

export type TVerificationVerdict = 'valid' | 'invalid' | 'unknown';

export type VerificationItemsTable = {
  id: Generated<number>;
  job_id: number;
  email: string;
  verdict: TVerificationVerdict | null;
  reason: string | null;
  flags: JsonColumn<Record<string, boolean>>;
  suggestion: string | null;
  mx: string | null;
  from_cache: Generated<boolean>;
  checked_at: Date | null;
};

export type VerifiedAddressesTable = {
  user_id: number;
  email: string;
  verdict: TVerificationVerdict;
  reason: string | null;
  flags: JsonColumn<Record<string, boolean>>;
  suggestion: string | null;
  checked_at: Generated<Date>;
};

export type TicketsTable = {
  id: Generated<number>;
  user_id: number | null;
  email: string;
  subject: string;
  active: Generated<boolean>;
  read: Generated<boolean>;
  created_at: CreatedAt;
  last_response_at: Generated<Date>;
  closed_at: Date | null;
};

export type TicketMessagesTable = {
  id: Generated<number>;
  ticket_id: number;
  author: 'user' | 'operator';
  author_user_id: number | null;
  message: string;
  created_at: CreatedAt;
};

export type AnnouncementsTable = Timestamps & {
  id: Generated<number>;
  title: string;
  body: string;
  published_at: Date | null;
  created_by: number | null;
};

export type AuditLogTable = {
  id: Generated<number>;
  operator_id: number | null;
  operator_email: string;
  action: string;
  target_type: string;
  target_id: string | null;
  details: JsonColumn<Record<string, unknown>>;
  created_at: CreatedAt;
};

export type CaptchaSolutionsTable = {
  nonce: string;
  expires_at: Date;
  created_at: CreatedAt;
};

export type StripeEventsTable = {
  id: string;
  type: string;
  created_at: CreatedAt;
};

export type SessionsTable = {
  id_hash: Buffer;
  user_id: number;
  ip: string | null;
  user_agent: string | null;
  created_at: CreatedAt;
  last_seen_at: Timestamp;
  expires_at: Date;
};

export type PasswordResetsTable = UserRow &
  Timestamps & {
    token_hash: Buffer;
    expires_at: Date;
    used_at: Date | null;
  };

export type EmailChangesTable = UserRow &
  Timestamps & {
    new_email: string;
    token_hash: Buffer | null;
    expires_at: Date;
    used_at: Date | null;
    old_email: string | null;
    confirmed_at: Date | null;
    reverted_at: Date | null;
  };

export type RateLimitBucketsTable = {
  key: string;
  window_started_at: Date;
  hits: number;
};

export type NotificationsTable = UserRow &
  Timestamps & {
    title: string;
    body: Generated<string>;
    link: string | null;
    read_at: Date | null;
  };

export type NotificationCountersTable = {
  user_id: number;
  total: number;
  unread: number;
  updated_at: Timestamp;
};

export type CreditEntriesTable = UserRow &
  Timestamps & {
    type: string;
    quantity: number;
    reference: string | null;
  };

export type CreditBalancesTable = Timestamps & {
  user_id: number;
  balance: Generated<number>;
  used: Generated<number>;
};

export type SendingAccountsTable = UserRow &
  Timestamps & {
    name: string;
    provider: 'mailgun' | 'smtp' | 'google';
    is_primary: Generated<boolean>;
    domain: string | null;
    region: 'us' | 'eu' | null;
    api_key_encrypted: Buffer | null;
    import_lists: Generated<boolean>;
    driver: string | null;
    username: string | null;
    host: string | null;
    port: number | null;
    encryption: 'tls' | 'ssl' | null;
    from_address: string | null;
    mail_per_day: Generated<number>;
    /** The operator's cap, replacing mail_per_day when set (1 to 10,000,000). */
    operator_mail_per_day: number | null;
    /** The circuit breaker's lines, in percent of the messages handed over (issue 31). */
    breaker_bounce_percent: Generated<number>;
    breaker_complaint_percent: Generated<number>;
    password_encrypted: Buffer | null;
    google_email: string | null;
    oauth_refresh_token_encrypted: Buffer | null;
    oauth_access_token_encrypted: Buffer | null;
    oauth_expires_at: Date | null;
    webhook_key_encrypted: Buffer | null;
    /** The DKIM selector an SMTP account signs with (issue 31), for the pre-send check. */
    dkim_selector: Generated<string | null>;
  };

export type TestInboxMessagesTable = UserRow &
  Timestamps & {
    mail_from: string;
    rcpt_to: string[];
    subject: Generated<string>;
    text_body: string | null;
    html_body: string | null;
    size_bytes: number;
    /** The message as it arrived (null for messages kept before it was stored). */
    raw: Buffer | null;
    /** The spam-test analysis of `raw`, computed when first asked for. */
    analysis: unknown | null;
  };

export type VerificationProbeStatusTable = {
  id: Generated<number>;
  blocked_since: Date | null;
  last_reached_at: Date | null;
  unreachable_domains: Generated<number>;
  detail: string | null;
  updated_at: Generated<Date>;
};

/** Whether the DNS resolver finds names that must exist, as each asker last saw it (R48). */
export type ResolverStatusTable = {
  source: 'verification' | 'pre-send';
  servers: Generated<string>;
  broken_since: Date | null;
  last_ok_at: Date | null;
  detail: string | null;
  updated_at: Generated<Date>;
};

export type CampaignsTable = UserRow &
  Timestamps & {
    account_id: number | null;
    temporary_key: string | null;
    is_draft: Generated<boolean>;
    step: Generated<number>;
    title: Generated<string>;
    sender_name: Generated<string>;
    alias: Generated<string>;
    use_subdomain: Generated<boolean>;
    from_address: Generated<string>;
    signature: Generated<string>;
    running: Generated<boolean>;
    track_opens: Generated<boolean>;
    track_clicks: Generated<boolean>;
    schedule_at: Date | null;
    accept_law: Generated<boolean>;
    /** Spec §3's leadCatcher option: kept and answered. */
    lead_catcher: Generated<boolean>;
    mail_per_day: Generated<number>;
    mail_per_delay: Generated<number>;
    daily_plan: unknown;
    variables: Generated<unknown>;
    /** When the circuit breaker stopped the campaign, and why (issue 31); cleared when it starts again. */
    breaker_tripped_at: Date | null;
    breaker_reason: string | null;
    /** Started again after the breaker stopped it, the campaign is judged on its messages after this one. */
    breaker_after_message_id: Generated<number>;
    signature_document: BuilderDocument;
  };

export type CampaignStepsTable = {
  id: Generated<number>;
  campaign_id: number;
  user_id: number;
  position: number;
  subject: string;
  body: string;
  reply_to: Generated<string>;
  global_reply: Generated<boolean>;
  period: Generated<number>;
  frequency: Generated<'hour' | 'day' | 'week' | 'month'>;
  /** `{waitDays, subject, body}`: sent when the step's email is not opened within the days. */
  follow_up: unknown | null;
  /** `{waitDays, link, subject, body}`: sent the days after the recipient clicks the link. */
  click_follow_up: unknown | null;
  deleted_at: Date | null;
  created_at: CreatedAt;
  body_document: BuilderDocument;
};

export type CampaignRecipientsTable = {
  id: Generated<number>;
  campaign_id: number;
  user_id: number;
  email: string;
  name: Generated<string>;
  variables: Generated<unknown>;
  paused: Generated<boolean>;
  state: Generated<'active' | 'done' | 'stopped'>;
  stop_reason: string | null;
  next_position: Generated<number>;
  due_at: Generated<Date>;
  last_sent_at: Date | null;
  thread_message_id: string | null;
  thread_subject: string | null;
  /** The source that first gave the address (a file, the manual table, a list). */
  source_id: number | null;
  created_at: CreatedAt;
};

/** Where a draft's recipients come from (issue 47): a file, the manual table or a mailing list. */
export type CampaignSourcesTable = {
  id: Generated<number>;
  campaign_id: number;
  user_id: number;
  kind: 'file' | 'manual' | 'list';
  name: string;
  list_id: number | null;
  rows: Generated<number>;
  added: Generated<number>;
  duplicates: Generated<number>;
  skipped: Generated<number>;
  unverified: Generated<number>;
  created_at: CreatedAt;
};

/** A file's or the manual table's rows, kept while the campaign is a draft. */
export type CampaignSourceRowsTable = {
  source_id: number;
  position: number;
  user_id: number;
  email: string;
  name: Generated<string>;
  variables: JsonColumn<Record<string, string>>;
};

export type CampaignMessagesTable = {
  id: Generated<number>;
  campaign_id: number;
  recipient_id: number;
  step_id: number;
  user_id: number;
  account_id: number | null;
  position: number;
  kind: Generated<'step' | 'follow-up' | 'click-follow-up'>;
  send_id: number | null;
  message_id: string | null;
  subject: string;
  body: Generated<string>;
  status: Generated<'queued' | 'sent' | 'failed'>;
  error: string | null;
  sent_at: Date | null;
  opened_at: Date | null;
  clicked_at: Date | null;
  delivered_at: Date | null;
  complained_at: Date | null;
  unsubscribed_at: Date | null;
  synced_at: Date | null;
  created_at: CreatedAt;
};

export type SpamTestsTable = UserRow & {
  account_id: number | null;
  send_id: number | null;
  token: string;
  address: string;
  status: Generated<'waiting' | 'received' | 'scored' | 'failed'>;
  from_name: Generated<string>;
  from_address: string;
  subject: string;
  html: string;
  raw: Buffer | null;
  remote_ip: string | null;
  helo: string | null;
  mail_from: string | null;
  /** numeric(3,1): pg returns it as text. */
  score: string | null;
  report: unknown | null;
  error: string | null;
  credits_charged: Generated<number>;
  credits_refunded: Generated<number>;
  created_at: CreatedAt;
  received_at: Date | null;
  scored_at: Date | null;
};

/** A member's search terms (email and name), indexed for contains-search after the member is committed. */
export type ListMemberSearchTable = {
  member_id: number;
  list_id: number;
  terms: string;
};

export type MailingListsTable = UserRow &
  Timestamps & {
    account_id: number;
    alias: string;
    domain: string;
    address: string;
    name: string;
    description: Generated<string>;
    provider_address: string | null;
    /** The highest member id whose search terms are indexed (`list_member_search`). */
    search_indexed_through: Generated<number>;
    members_count: Generated<number>;
    subscribed_count: Generated<number>;
    verified_count: Generated<number>;
    unverified_subscribers_count: Generated<number>;
    verify_status: Generated<'unverified' | 'processing' | 'verified'>;
    verified_at: Date | null;
    /** Signups through the list's form wait for the confirmation link (issue 48). */
    double_opt_in: Generated<boolean>;
    /** The random key of the list's public form, `/subscribe/<form_key>`. */
    form_key: Generated<string>;
    /** Which fields the form asks for (contracts `ZSignupFields`). */
    form_fields: JsonColumn<unknown>;
    consent_text: Generated<string>;
    /** Empty: the built-in confirmation email. */
    confirmation_subject: Generated<string>;
    confirmation_html: Generated<string>;
  };

export type ListMembersTable = UserRow &
  Timestamps & {
    list_id: number;
    account_id: number;
    email: string;
    fullname: Generated<string>;
    subscribed: Generated<boolean>;
    verified: Generated<boolean>;
    verified_at: Date | null;
    fields: JsonColumn<Record<string, string>>;
    /** Signed up to a double opt-in list and not confirmed yet: never subscribed meanwhile. */
    unconfirmed: Generated<boolean>;
    /** The import that added the member (its consent record). */
    import_id: number | null;
  };

/** An act of consent of a member, and a double opt-in signup's confirmation (issue 48). */
export type MemberConsentsTable = UserRow &
  Timestamps & {
    list_id: number;
    member_id: number;
    source: 'form' | 'manual' | 'import' | 'provider' | 'api';
    source_detail: Generated<string>;
    ip: string | null;
    user_agent: string | null;
    consent_text: Generated<string>;
    confirm_token_hash: Buffer | null;
    confirm_expires_at: Date | null;
    confirmation_sent_at: Date | null;
    confirmations_sent: Generated<number>;
    confirmation_send_id: number | null;
    confirmed_at: Date | null;
    confirmed_ip: string | null;
  };

/** An erased address, kept only as `erased_address_hash(user_id, email)` so it stays unmailed. */
export type ErasedAddressesTable = {
  user_id: number;
  email_hash: Buffer;
  created_at: CreatedAt;
};

export type ListImportsTable = UserRow &
  Timestamps & {
    list_id: number;
    file_name: string;
    mapping: ColumnType<unknown, string, string>;
    /** 'uploading': chunks still arriving; no page shows the row and no job reads it. */
    status: Generated<'uploading' | 'queued' | 'running' | 'finished' | 'failed'>;
    stage: Generated<'reading' | 'saving' | 'done'>;
    bytes_total: Generated<number>;
    bytes_read: Generated<number>;
    rows_read: Generated<number>;
    added: Generated<number>;
    updated: Generated<number>;
    skipped: Generated<number>;
    duplicates: Generated<number>;
    skipped_reasons: JsonColumn<Record<string, number>>;
    has_report: Generated<boolean>;
    error: string | null;
    /** Where the file was uploaded from (the consent record of the members it added). */
    ip: string | null;
    finished_at: Date | null;
  };

export type ListImportFilesTable = {
  import_id: number;
  kind: 'upload' | 'report';
  seq: number;
  data: Buffer;
};

export type SuppressionsTable = UserRow &
  Timestamps & {
    email: string;
    type: 'bounce' | 'suppress-bounce' | 'complained' | 'unsubscribed' | 'temporary' | 'generic';
    quantity: Generated<number>;
    reason: string | null;
    message: string | null;
    description: string | null;
    source: 'smtp' | 'mailgun' | 'user' | 'import' | null;
    send_id: number | null;
    /** The sending account it came through; null for a user's or an import's. */
    account_id: number | null;
    /** When a temporary suppression lifts; null for every other type. */
    expires_at: Date | null;
  };

/** Soft bounces the temporary suppression rule counts (the suppression module's). */
export type SoftBouncesTable = UserRow & {
  email: string;
  send_id: number | null;
  bounced_at: Generated<Date>;
};

export type TemplatesTable = Timestamps & {
  id: Generated<number>;
  user_id: number | null;
  name: string;
  subject: Generated<string>;
  html: string;
  /** The builder's document the HTML was rendered from (issue 46); null for HTML written by hand. */
  document: BuilderDocument;
};

export type TSendStatus =
  | 'scheduled'
  | 'queued'
  | 'snapshotting'
  | 'sending'
  | 'paused'
  | 'cancelled'
  | 'finished'
  | 'failed'
  /** A part of a split send (an A/B test's rest) whose recipients wait for another send's decision. */
  | 'held';

/** Where a send's recipients come from: its lists, or a source that gives them at creation. */
export type TSendSource = 'lists' | 'drip' | 'spam-test' | 'confirmation' | 'transactional';

/** A group of sends the circuit breaker judges as one (issue 44 §4): a drip campaign's messages. */
export type BreakerGroupsTable = {
  key: string;
  user_id: number;
  account_id: number | null;
  tripped_at: Date | null;
  reason: string | null;
  /** Started again after a trip: judged on the sends made since. */
  judged_from: Date | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
};

export type SendsTable = UserRow &
  Timestamps & {
    account_id: number | null;
    type: Generated<1 | 2>;
    source: Generated<TSendSource>;
    status: Generated<TSendStatus>;
    from_name: Generated<string>;
    from_address: string;
    subject: string;
    cc: Generated<string>;
    bcc: Generated<string>;
    reply_to: Generated<string>;
    html: string;
    list_ids: number[];
    list_names: Generated<string>;
    track_opens: Generated<boolean>;
    track_clicks: Generated<boolean>;
    deliver_at: Date | null;
    started_at: Date | null;
    finished_at: Date | null;
    error: string | null;
    recipients_count: Generated<number>;
    sent_count: Generated<number>;
    failed_count: Generated<number>;
    unknown_count: Generated<number>;
    delivered_count: Generated<number>;
    opened_count: Generated<number>;
    clicked_count: Generated<number>;
    complained_count: Generated<number>;
    unsubscribed_count: Generated<number>;
    /** Why the send waits (the SMTP daily cap); shown with its progress and in the history. */
    note: string | null;
    /** Every recipient up to this id has been claimed once: new claims start above it (issue 33). */
    claimed_to: Generated<number>;
    waiting_until: Date | null;
    /** When the circuit breaker paused the send, and why (issue 31); cleared when the user resumes it. */
    breaker_tripped_at: Date | null;
    breaker_reason: string | null;
    /** Resumed after the breaker paused it: the messages since are judged again (issue 45 §3). */
    breaker_judged_from: Date | null;
    /** The breaker group the send is judged in (a drip campaign's messages: `campaign:<id>`), or null. */
    breaker_group: string | null;
    /** A re-send by engagement (issue 31): its audience is this send's recipients who did this. */
    resend_of: Generated<number | null>;
    resend_audience: Generated<'not-opened' | 'opened' | 'clicked' | null>;
    resend_link_id: Generated<number | null>;
    /** A split send (an A/B subject test, issue 31 §4): the lead part's id on every part, and the part (1–3 test subjects, 0 the rest). */
    split_group: Generated<number | null>;
    split_part: Generated<number | null>;
    split_test_percent: Generated<number | null>;
    /** The builder's document beside `html` (issue 46); the engine never reads it. */
    document: BuilderDocument;
  };

export type AbTestsTable = UserRow &
  Timestamps & {
    lead_send_id: number;
    metric: 'opens' | 'clicks';
    wait_minutes: number;
    decide_at: Date;
    status: Generated<'testing' | 'decided' | 'cancelled'>;
    winner_part: number | null;
    decided_at: Date | null;
    decision: string | null;
  };

export type AccountDailyCountsTable = {
  account_id: number;
  day: string;
  sent: Generated<number>;
};

export type AccountCapReservationsTable = {
  id: Generated<number>;
  account_id: number;
  counted_at: Date;
  sent: number;
  created_at: CreatedAt;
};

export type SendRecipientsTable = Timestamps & {
  id: Generated<number>;
  send_id: number;
  user_id: number;
  email: string;
  name: Generated<string>;
  fields: JsonColumn<Record<string, string>>;
  /** Headers of this recipient's message alone (a drip follow-up's In-Reply-To). */
  headers: ColumnType<Record<string, string> | null, string | null | undefined, string | null>;
  token: string;
  status: Generated<'pending' | 'sending' | 'sent' | 'deferred' | 'failed' | 'unknown'>;
  attempts: Generated<number>;
  next_attempt_at: Date | null;
  lease_token: string | null;
  lease_until: Date | null;
  started_at: Date | null;
  worker_key: number | null;
  message_id: string | null;
  provider_id: string | null;
  error: string | null;
  sent_at: Date | null;
  delivered_at: Date | null;
  opened_at: Date | null;
  clicked_at: Date | null;
  complained_at: Date | null;
  unsubscribed_at: Date | null;
};

/**
 * A claim (issue 33 §2): one per provider call or SMTP claim, its fence, holder and
 * range of recipient ids; what the reaper and the watchdog look at.
 */
export type SendClaimsTable = {
  lease_token: string;
  send_id: number;
  worker_key: number | null;
  lease_until: Date;
  first_id: number;
  last_id: number;
  created_at: CreatedAt;
};

export type SendLinksTable = {
  id: Generated<number>;
  send_id: number;
  url: string;
  created_at: CreatedAt;
};

export type TDeliveryEventType =
  | 'accepted'
  | 'delivered'
  | 'deferred'
  | 'failed'
  | 'unknown'
  | 'opened'
  | 'clicked'
  | 'complained'
  | 'unsubscribed';

export type DeliveryEventsTable = UserRow & {
  account_id: number | null;
  send_id: number | null;
  recipient_id: number | null;
  email: string;
  type: TDeliveryEventType;
  severity: 'temporary' | 'permanent' | null;
  source: 'smtp' | 'mailgun' | 'tracking' | 'recipient';
  provider_event_id: string | null;
  detail: string | null;
  link_id: number | null;
  occurred_at: Generated<Date>;
  /** The recipient's first event of its kind (a repeated open or click is not): only a first moves a figure. */
  is_first: Generated<boolean>;
  created_at: CreatedAt;
};

export type AccountDailyStatsTable = {
  account_id: number;
  day: ColumnType<Date, string, string>;
  user_id: number;
  recipients: Generated<number>;
  accepted: Generated<number>;
  delivered: Generated<number>;
  deferred: Generated<number>;
  failed: Generated<number>;
  bounced_hard: Generated<number>;
  bounced_soft: Generated<number>;
  opened_events: Generated<number>;
  clicked_events: Generated<number>;
  unknown: Generated<number>;
  opened: Generated<number>;
  clicked: Generated<number>;
  complained: Generated<number>;
  unsubscribed: Generated<number>;
  updated_at: Timestamp;
};

export type ProviderEventsTable = {
  id: string;
  account_id: number | null;
  payload: JsonColumn<Record<string, unknown>>;
  applied_at: Date | null;
  created_at: CreatedAt;
};
export type WebhookTokensTable = {
  token: string;
  /** The event the token came with: a retry carries the same one (R31). Null on rows older than the column. */
  event_id: string | null;
  created_at: CreatedAt;
};

export type ApiKeysTable = UserRow &
  Timestamps & {
    name: string;
    key_hash: Buffer;
    key_prefix: string;
    scopes: string[];
    last_used_at: Date | null;
    revoked_at: Date | null;
  };

export type WebhookEndpointsTable = UserRow &
  Timestamps & {
    url: string;
    description: Generated<string>;
    event_types: string[];
    secret: Buffer | null;
    is_enabled: Generated<boolean>;
  };

export type WebhookDeliveriesTable = UserRow &
  Timestamps & {
    endpoint_id: number;
    event_id: string;
    type: string;
    ordering_key: string;
    payload: ColumnType<unknown, string, string>;
    status: Generated<'pending' | 'delivered' | 'failed'>;
    attempts: Generated<number>;
    next_attempt_at: Timestamp;
    lease_token: string | null;
    leased_until: Date | null;
    delivered_at: Date | null;
  };

export type WebhookAttemptsTable = {
  id: Generated<number>;
  delivery_id: number;
  user_id: number;
  status_code: number | null;
  response: Generated<string>;
  duration_ms: Generated<number>;
  created_at: CreatedAt;
};

export type TransactionalRequestsTable = UserRow &
  Timestamps & {
    idempotency_key: string;
    request_hash: Buffer;
    send_id: number;
    queued: boolean;
  };

/** A send waiting for its lists' verification (the verify-lists upsell, issue 47). */
export type SendsAfterVerificationTable = UserRow &
  Timestamps & {
    storage_id: string;
    form: unknown;
    list_ids: number[];
    subject: string;
    drop_invalid: Generated<boolean>;
    status: Generated<'waiting' | 'starting' | 'started' | 'failed' | 'cancelled'>;
    send_id: number | null;
    error: string | null;
  };

export type Database = {
  sends_after_verification: SendsAfterVerificationTable;
  api_keys: ApiKeysTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  transactional_requests: TransactionalRequestsTable;
  sending_accounts: SendingAccountsTable;
  mailing_lists: MailingListsTable;
  list_members: ListMembersTable;
  member_consents: MemberConsentsTable;
  erased_addresses: ErasedAddressesTable;
  list_imports: ListImportsTable;
  list_import_files: ListImportFilesTable;
  suppressions: SuppressionsTable;
  soft_bounces: SoftBouncesTable;
  templates: TemplatesTable;
  media_files: MediaFilesTable;
  media: MediaTable;
  sends: SendsTable;
  breaker_groups: BreakerGroupsTable;
  ab_tests: AbTestsTable;
  account_daily_counts: AccountDailyCountsTable;
  account_cap_reservations: AccountCapReservationsTable;
  list_member_search: ListMemberSearchTable;
  tickets: TicketsTable;
  verification_jobs: VerificationJobsTable;
  spam_tests: SpamTestsTable;
  campaigns: CampaignsTable;
  campaign_steps: CampaignStepsTable;
  campaign_recipients: CampaignRecipientsTable;
  campaign_sources: CampaignSourcesTable;
  campaign_source_rows: CampaignSourceRowsTable;
  campaign_messages: CampaignMessagesTable;
  verification_probe_status: VerificationProbeStatusTable;
  resolver_status: ResolverStatusTable;
  verification_items: VerificationItemsTable;
  verified_addresses: VerifiedAddressesTable;
  ticket_messages: TicketMessagesTable;
  announcements: AnnouncementsTable;
  audit_log: AuditLogTable;
  send_recipients: SendRecipientsTable;
  send_claims: SendClaimsTable;
  send_links: SendLinksTable;
  delivery_events: DeliveryEventsTable;
  account_daily_stats: AccountDailyStatsTable;
  provider_events: ProviderEventsTable;
  webhook_tokens: WebhookTokensTable;
  test_inbox_messages: TestInboxMessagesTable;
  captcha_solutions: CaptchaSolutionsTable;
  stripe_events: StripeEventsTable;
  credit_entries: CreditEntriesTable;
  credit_balances: CreditBalancesTable;
  notification_counters: NotificationCountersTable;
  plans: PlansTable;
  users: UsersTable;
  sessions: SessionsTable;
  password_resets: PasswordResetsTable;
  email_changes: EmailChangesTable;
  rate_limit_buckets: RateLimitBucketsTable;
  notifications: NotificationsTable;
};
