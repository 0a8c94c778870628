-- Transactional sends (issue 48 §2): a saved template to one address through the engine, a
-- send of its own source. An idempotency key names the send the first call made, so a
-- retried call answers it instead of sending again; the unique key makes two calls at once
-- wait for each other, and the second finds the first's send.
alter table sends drop constraint if exists sends_source_check;
alter table sends add constraint sends_source_check check (source in ('lists', 'drip', 'spam-test', 'confirmation', 'transactional'));

create table transactional_requests (
  id bigint generated always as identity primary key,
  user_id bigint not null references users (id) on delete cascade,
  idempotency_key text not null check (length(idempotency_key) between 1 and 255),
  -- SHA-256 of the call's parameters: the same key with other parameters is refused.
  request_hash bytea not null,
  send_id bigint not null references sends (id) on delete cascade,
  queued boolean not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (user_id, idempotency_key)
);
create index transactional_requests_send_idx on transactional_requests (send_id);
