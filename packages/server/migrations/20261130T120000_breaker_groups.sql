-- One circuit breaker (issue 44 §4): a drip campaign's messages are engine sends of one
-- recipient each, judged together. A send may belong to a breaker group (its source names
-- it: `campaign:<id>`); the group's state is the engine's, here. The group trips once; a
-- group started again is judged on the sends made after `judged_from`.
alter table sends add column breaker_group text;
create index sends_breaker_group on sends (breaker_group, created_at) where breaker_group is not null;

create table breaker_groups (
  key text primary key,
  user_id bigint not null references users (id) on delete cascade,
  account_id bigint references sending_accounts (id) on delete set null,
  tripped_at timestamptz,
  reason text,
  judged_from timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index breaker_groups_user_id on breaker_groups (user_id);
