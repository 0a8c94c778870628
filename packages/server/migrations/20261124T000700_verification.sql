-- Email verification: jobs (the tool's pastes and uploads), their addresses with verdicts,
-- and each user's results by address (what "already checked" means; re-used unless the
-- user asks to check again).
create table verification_jobs (
  id bigint generated always as identity primary key,
  user_id bigint not null references users (id) on delete cascade,
  status text not null default 'draft' check (status in ('draft', 'queued', 'running', 'finished', 'failed')),
  total int not null default 0,
  duplicates int not null default 0,
  already_checked int not null default 0,
  recheck boolean not null default false,
  checked int not null default 0,
  valid int not null default 0,
  invalid int not null default 0,
  unknown int not null default 0,
  credits_charged int not null default 0,
  credits_refunded int not null default 0,
  error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  finished_at timestamptz
);
create index verification_jobs_user_idx on verification_jobs (user_id, created_at desc);

create table verification_items (
  id bigint generated always as identity primary key,
  job_id bigint not null references verification_jobs (id) on delete cascade,
  email text not null,
  verdict text check (verdict in ('valid', 'invalid', 'unknown')),
  reason text,
  flags jsonb not null default '{}'::jsonb,
  suggestion text,
  mx text,
  from_cache boolean not null default false,
  checked_at timestamptz
);
create unique index verification_items_email_key on verification_items (job_id, lower(email));
create index verification_items_todo_idx on verification_items (job_id, id) where verdict is null;

create table verified_addresses (
  user_id bigint not null references users (id) on delete cascade,
  email text not null,
  verdict text not null check (verdict in ('valid', 'invalid', 'unknown')),
  reason text,
  flags jsonb not null default '{}'::jsonb,
  suggestion text,
  checked_at timestamptz not null default now()
);
create unique index verified_addresses_key on verified_addresses (user_id, lower(email));
