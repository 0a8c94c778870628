-- A new email address waits here until its owner opens the link mailed to it (issue 29): the
-- user keeps signing in with the old address until then, so a typo locks nobody out and
-- nobody can move an account to an address they do not read.
create table email_changes (
  id bigint generated always as identity primary key,
  user_id bigint not null references users (id) on delete cascade,
  new_email text not null,
  -- SHA-256 of the link's token; null until the mail job made the link (the token itself is
  -- never stored, nor put in a job's payload).
  token_hash bytea unique,
  expires_at timestamptz not null,
  used_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index email_changes_user_id_idx on email_changes (user_id);
