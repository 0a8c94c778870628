-- Sending accounts: a Mailgun domain, an SMTP server, or a Google mailbox. Secrets
-- (API key, SMTP password, OAuth tokens) are stored only encrypted (AES-256-GCM, the
-- row and column as associated data); nothing here is readable without the key.
create table sending_accounts (
  id bigint generated always as identity primary key,
  user_id bigint not null references users (id) on delete cascade,
  name text not null,
  provider text not null check (provider in ('mailgun', 'smtp', 'google')),
  -- The spec's "active", labelled Primary Account: at most one per user.
  is_primary boolean not null default false,
  domain text,
  region text check (region in ('us', 'eu')),
  api_key_encrypted bytea,
  import_lists boolean not null default false,
  -- SMTP and Google (app password or XOAUTH2 through smtp.gmail.com).
  driver text,
  username text,
  host text,
  port integer check (port between 1 and 65535),
  encryption text check (encryption in ('tls', 'ssl')),
  from_address text,
  mail_per_day integer not null default 0 check (mail_per_day >= 0),
  password_encrypted bytea,
  google_email text,
  oauth_refresh_token_encrypted bytea,
  oauth_access_token_encrypted bytea,
  oauth_expires_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index sending_accounts_user_idx on sending_accounts (user_id, id);
create unique index sending_accounts_one_primary_key on sending_accounts (user_id) where is_primary;

-- What the built-in test inbox received, per user (the SMTP login names the user).
create table test_inbox_messages (
  id bigint generated always as identity primary key,
  user_id bigint not null references users (id) on delete cascade,
  mail_from text not null,
  rcpt_to text[] not null,
  subject text not null default '',
  text_body text,
  html_body text,
  size_bytes integer not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index test_inbox_messages_user_created_idx on test_inbox_messages (user_id, created_at desc, id desc);
