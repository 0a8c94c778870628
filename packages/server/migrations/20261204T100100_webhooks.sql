-- Webhooks out (issue 48 §3, R44). An endpoint is a URL a user registered for some event
-- types, with its signing secret (AES-256-GCM, the row as associated data: it is needed in
-- clear to sign, so it is encrypted, not hashed).
create table webhook_endpoints (
  id bigint generated always as identity primary key,
  user_id bigint not null references users (id) on delete cascade,
  url text not null check (length(url) <= 2000),
  description text not null default '',
  event_types text[] not null check (cardinality(event_types) > 0),
  secret bytea,
  is_enabled boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index webhook_endpoints_user_id_idx on webhook_endpoints (user_id);

-- The queue: one row per event and endpoint, inserted in the transaction of the change the
-- event tells of, so an event exists exactly when its change committed. Ids follow the order
-- events were emitted; a delivery waits while an earlier one of its endpoint and ordering key
-- (the member's address, or the send) is pending, so each receiver sees a member's events in
-- order. Retried with backoff until `created_at` + 24 h, then `failed`.
create table webhook_deliveries (
  id bigint generated always as identity primary key,
  user_id bigint not null references users (id) on delete cascade,
  endpoint_id bigint not null references webhook_endpoints (id) on delete cascade,
  -- The event's id, the same for every endpoint and every retry: receivers drop repeats by it.
  event_id text not null,
  type text not null,
  ordering_key text not null,
  payload jsonb not null,
  status text not null default 'pending' check (status in ('pending', 'delivered', 'failed')),
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  -- A worker's hold on the delivery while its request is in flight (at most one at a time).
  lease_token uuid,
  leased_until timestamptz,
  delivered_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
-- A claim walks an endpoint's pending deliveries in id order (the first index) and takes
-- each that no earlier pending delivery of its ordering key holds back (a probe of the
-- second): the cost of a claim is what it takes, not the whole queue.
create index webhook_deliveries_pending_idx on webhook_deliveries (endpoint_id, id) where status = 'pending';
create index webhook_deliveries_pending_key_idx on webhook_deliveries (endpoint_id, ordering_key, id)
  where status = 'pending';
-- The minute's sweep: endpoints with deliveries due.
create index webhook_deliveries_due_idx on webhook_deliveries (next_attempt_at) where status = 'pending';
-- The log, newest first, and the cleanup of old rows.
create index webhook_deliveries_endpoint_idx on webhook_deliveries (endpoint_id, id desc);
create index webhook_deliveries_created_idx on webhook_deliveries (created_at) where status <> 'pending';

-- Every attempt and what the receiver answered (its status and the start of its body), or
-- why nothing came back: the log a user reads.
create table webhook_attempts (
  id bigint generated always as identity primary key,
  delivery_id bigint not null references webhook_deliveries (id) on delete cascade,
  user_id bigint not null references users (id) on delete cascade,
  status_code integer,
  response text not null default '' check (length(response) <= 500),
  duration_ms integer not null default 0,
  created_at timestamptz not null default now()
);
create index webhook_attempts_delivery_idx on webhook_attempts (delivery_id, id);
