-- Support tickets, announcements, the operator role and the operator audit log.

-- A user is an ordinary user or an operator (granted by `npm run admin -- grant-operator`);
-- a disabled user cannot sign in and has no session.
alter table users add column role text not null default 'user' check (role in ('user', 'operator'));
alter table users add column disabled_at timestamptz;

-- A ticket is a conversation between a user (by email, as the ticket service's API keys
-- it; user_id when the email is a Sendwell user's) and the operators.
create table tickets (
  id bigint generated always as identity primary key,
  user_id bigint references users (id) on delete cascade,
  email text not null,
  subject text not null check (char_length(subject) between 3 and 500),
  active boolean not null default true,
  -- The user has read the latest operator answer (false: bold with a badge).
  read boolean not null default true,
  created_at timestamptz not null default now(),
  last_response_at timestamptz not null default now(),
  closed_at timestamptz
);
create index tickets_email_idx on tickets (lower(email), last_response_at desc);
create index tickets_user_idx on tickets (user_id, last_response_at desc);
create index tickets_open_idx on tickets (last_response_at desc) where active;

create table ticket_messages (
  id bigint generated always as identity primary key,
  ticket_id bigint not null references tickets (id) on delete cascade,
  author text not null check (author in ('user', 'operator')),
  author_user_id bigint references users (id) on delete set null,
  message text not null check (char_length(message) between 3 and 20000),
  created_at timestamptz not null default now()
);
create index ticket_messages_ticket_idx on ticket_messages (ticket_id, id);

-- The user's unread answers, kept beside the ticket so the badge is one indexed count.
create index tickets_unread_idx on tickets (user_id) where not read;

create table announcements (
  id bigint generated always as identity primary key,
  title text not null check (char_length(title) between 1 and 200),
  body text not null check (char_length(body) between 1 and 10000),
  published_at timestamptz,
  created_by bigint references users (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index announcements_published_idx on announcements (published_at desc) where published_at is not null;

-- Every operator action: who, what, on what, when, with what.
create table audit_log (
  id bigint generated always as identity primary key,
  operator_id bigint references users (id) on delete set null,
  operator_email text not null,
  action text not null,
  target_type text not null,
  target_id text,
  details jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now()
);
create index audit_log_created_idx on audit_log (created_at desc, id desc);
