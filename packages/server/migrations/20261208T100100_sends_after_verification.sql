-- A send that waits for its lists' verification (the verify-lists upsell, issue 47): the Send
-- Email form as the user confirmed it, kept until the list verifications started under the
-- same storage id end; then it is sent (status started, with its send) by the send-email
-- module's resume job, or it fails with the reason. `starting` fences the one start: a job
-- that finds it there after a crash does not send again, it marks the row failed.
create table sends_after_verification (
  id bigint generated always as identity primary key,
  user_id bigint not null references users (id) on delete cascade,
  storage_id text not null check (length(storage_id) between 1 and 100),
  form jsonb not null,
  list_ids bigint[] not null,
  subject text not null,
  -- Leave out the addresses the verification found invalid (unsubscribed from these lists).
  drop_invalid boolean not null default true,
  status text not null default 'waiting' check (status in ('waiting', 'starting', 'started', 'failed', 'cancelled')),
  send_id bigint references sends (id) on delete set null,
  error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (user_id, storage_id)
);
create index sends_after_verification_waiting_idx on sends_after_verification (user_id) where status in ('waiting', 'starting');
