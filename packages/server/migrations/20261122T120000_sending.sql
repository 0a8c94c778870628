-- Sending: templates, sends with one row per recipient (the checkpoint), suppressions,
-- tracked links and provider events.

-- Mailgun signs its webhooks with an account-wide key of their own.
alter table sending_accounts add column webhook_key_encrypted bytea;

-- Provider events already applied (Mailgun's event id), so a replay changes nothing (R10),
-- and webhook tokens already seen, so a replayed request is refused (R9).
-- Events are stored as they arrive and applied in batches by `sending.apply-events`.
create table provider_events (
  id text primary key,
  account_id bigint references sending_accounts (id) on delete cascade,
  payload jsonb not null default '{}'::jsonb,
  applied_at timestamptz,
  created_at timestamptz not null default now()
);
create index provider_events_pending_idx on provider_events (created_at) where applied_at is null;
create table webhook_tokens (
  token text primary key,
  created_at timestamptz not null default now()
);
create index webhook_tokens_created_idx on webhook_tokens (created_at);

-- Addresses a user never sends to again (the spec's suppression types).
create table suppressions (
  id bigint generated always as identity primary key,
  user_id bigint not null references users (id) on delete cascade,
  email text not null,
  type text not null check (type in ('bounce', 'suppress-bounce', 'complained', 'unsubscribed', 'temporary', 'generic')),
  quantity integer not null default 1,
  reason text,
  message text,
  description text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index suppressions_email_key on suppressions (user_id, lower(email), type);

create table templates (
  id bigint generated always as identity primary key,
  -- Null for the starting templates every user sees.
  user_id bigint references users (id) on delete cascade,
  name text not null check (name <> ''),
  subject text not null default '',
  html text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index templates_user_idx on templates (user_id, id);

create table sends (
  id bigint generated always as identity primary key,
  user_id bigint not null references users (id) on delete cascade,
  account_id bigint references sending_accounts (id) on delete set null,
  -- The spec's history types: 1 Standard, 2 Scheduled Mail.
  type smallint not null default 1 check (type in (1, 2)),
  status text not null default 'queued'
    check (status in ('scheduled', 'queued', 'snapshotting', 'sending', 'paused', 'cancelled', 'finished', 'failed')),
  from_name text not null default '',
  from_address text not null,
  subject text not null,
  cc text not null default '',
  bcc text not null default '',
  reply_to text not null default '',
  html text not null,
  list_ids bigint[] not null,
  list_names text not null default '',
  track_opens boolean not null default true,
  track_clicks boolean not null default true,
  deliver_at timestamptz,
  started_at timestamptz,
  finished_at timestamptz,
  error text,
  recipients_count integer not null default 0,
  sent_count integer not null default 0,
  failed_count integer not null default 0,
  unknown_count integer not null default 0,
  delivered_count integer not null default 0,
  opened_count integer not null default 0,
  clicked_count integer not null default 0,
  complained_count integer not null default 0,
  unsubscribed_count integer not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index sends_user_idx on sends (user_id, created_at desc, id desc);
create index sends_due_idx on sends (deliver_at) where status = 'scheduled';

-- One row per recipient of a send: its status moves to 'sent' only when the provider
-- accepted the message; 'unknown' when the answer never came (never resent blindly).
create table send_recipients (
  id bigint generated always as identity primary key,
  send_id bigint not null references sends (id) on delete cascade,
  user_id bigint not null,
  email text not null,
  name text not null default '',
  fields jsonb not null default '{}'::jsonb,
  -- Public, random: the unsubscribe link and the tracking ids point here.
  token text not null,
  status text not null default 'pending'
    check (status in ('pending', 'sending', 'sent', 'deferred', 'failed', 'unknown')),
  attempts integer not null default 0,
  next_attempt_at timestamptz,
  lease_token uuid,
  lease_until timestamptz,
  message_id text,
  provider_id text,
  error text,
  sent_at timestamptz,
  delivered_at timestamptz,
  opened_at timestamptz,
  clicked_at timestamptz,
  complained_at timestamptz,
  unsubscribed_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index send_recipients_email_key on send_recipients (send_id, lower(email));
create unique index send_recipients_token_key on send_recipients (token);
create index send_recipients_work_idx on send_recipients (send_id, status, id);

-- The links of a send's HTML: a click goes to /api/t/c/… and is redirected only to a
-- target stored here for that send (R16).
create table send_links (
  id bigint generated always as identity primary key,
  send_id bigint not null references sends (id) on delete cascade,
  url text not null,
  created_at timestamptz not null default now()
);
create unique index send_links_url_key on send_links (send_id, url);

-- Opens and clicks as they happen; the send's counters count recipients, once each.
create table send_events (
  id bigint generated always as identity primary key,
  send_id bigint not null references sends (id) on delete cascade,
  recipient_id bigint not null references send_recipients (id) on delete cascade,
  type text not null check (type in ('opened', 'clicked')),
  link_id bigint references send_links (id) on delete cascade,
  created_at timestamptz not null default now()
);
create index send_events_send_idx on send_events (send_id, created_at);
