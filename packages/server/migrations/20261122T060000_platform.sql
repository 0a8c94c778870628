-- Platform foundation: plans, users, sessions, password resets, rate limits, notifications.
-- Ids are identity bigints (the spec's ids are numbers); tokens are stored only as
-- SHA-256 hashes so a database leak does not hand out live sessions or reset links.

create table plans (
  id bigint generated always as identity primary key,
  name text not null,
  -- The spec's "plan_name": a stable slug such as 'free' or '{product}-pro'.
  plan_name text not null unique,
  price_cents integer not null default 0 check (price_cents >= 0),
  is_free boolean not null default true,
  tax_percent numeric(5, 2) not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table users (
  id bigint generated always as identity primary key,
  name text not null,
  email text not null,
  password_hash text not null,
  plan_id bigint not null references plans (id),
  time_zone text not null default 'America/New_York',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index users_email_key on users (lower(email));
create index users_plan_id_idx on users (plan_id);

create table sessions (
  -- SHA-256 of the cookie value.
  id_hash bytea primary key,
  user_id bigint not null references users (id) on delete cascade,
  ip text,
  user_agent text,
  created_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index sessions_user_id_idx on sessions (user_id);
create index sessions_expires_at_idx on sessions (expires_at);

create table password_resets (
  id bigint generated always as identity primary key,
  user_id bigint not null references users (id) on delete cascade,
  token_hash bytea not null unique,
  expires_at timestamptz not null,
  used_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index password_resets_user_id_idx on password_resets (user_id);

-- Fixed-window counters shared by every web process (login, password reset, …).
create table rate_limit_buckets (
  key text primary key,
  window_started_at timestamptz not null,
  hits integer not null
);

create table notifications (
  id bigint generated always as identity primary key,
  user_id bigint not null references users (id) on delete cascade,
  title text not null,
  body text not null default '',
  link text,
  read_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index notifications_user_created_idx on notifications (user_id, created_at desc, id desc);
create index notifications_user_unread_idx on notifications (user_id) where read_at is null;
