-- Spam tests: a message sent through one of the user's accounts to a unique address of the
-- test mailbox, the raw message as it arrived and its analysis (score out of 10 and the
-- checks behind it). Credits are charged when the test is sent and given back once when
-- the message never arrives.
create table spam_tests (
  id bigint generated always as identity primary key,
  user_id bigint not null references users (id) on delete cascade,
  account_id bigint,
  -- The engine's send that carries the message (source 'spam-test').
  send_id bigint,
  token text not null unique,
  address text not null,
  status text not null default 'waiting' check (status in ('waiting', 'received', 'scored', 'failed')),
  from_name text not null default '',
  from_address text not null,
  subject text not null,
  html text not null,
  raw bytea,
  remote_ip text,
  helo text,
  mail_from text,
  score numeric(3, 1),
  report jsonb,
  error text,
  credits_charged int not null default 0,
  credits_refunded int not null default 0,
  created_at timestamptz not null default now(),
  received_at timestamptz,
  scored_at timestamptz
);
create index spam_tests_user_idx on spam_tests (user_id, created_at desc, id desc);
create index spam_tests_waiting_idx on spam_tests (created_at) where status in ('waiting', 'received');

-- The test inbox keeps each message as it arrived, so a user sees its headers and the
-- same analysis a spam test gives (computed when first asked for, then kept).
alter table test_inbox_messages add column raw bytea, add column analysis jsonb;
