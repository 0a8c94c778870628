-- A/B subject test (issue 31 §4): one Send Email send split into parts that are each an
-- ordinary send of the engine. The lead part's snapshot takes the audience once and deals it
-- out in one transaction: a test share split evenly among two or three subjects (parts 1–3),
-- everyone else to the rest (part 0), which is `held` (nothing of it is claimed) until the
-- A/B test's decision gives it the winning subject and lets it go. Each address lands in one
-- part only, so nobody gets the email twice across the parts.
alter table sends drop constraint sends_status_check;
alter table sends add constraint sends_status_check
  check (status in ('scheduled', 'queued', 'snapshotting', 'sending', 'paused', 'cancelled', 'finished', 'failed', 'held'));

alter table sends
  -- The lead part's id, on every part (the lead included); null for a send that is not split.
  add column split_group bigint references sends (id) on delete cascade,
  -- 1, 2, 3: the test subjects A, B, C (1 is the lead); 0: the rest.
  add column split_part smallint check (split_part between 0 and 3),
  -- The share of the audience that tests the subjects, all test parts together.
  add column split_test_percent double precision check (split_test_percent > 0 and split_test_percent <= 100),
  add constraint sends_split_whole check ((split_group is null) = (split_part is null));
create unique index sends_split_part_idx on sends (split_group, split_part) where split_group is not null;

-- The A/B test: when and by what the winner is chosen, and the decision once made. Owned by
-- the ab-tests module; its sends are the engine's (`split_group` = `lead_send_id`).
create table ab_tests (
  id bigint generated always as identity primary key,
  user_id bigint not null references users (id) on delete cascade,
  lead_send_id bigint not null unique references sends (id) on delete cascade,
  metric text not null check (metric in ('opens', 'clicks')),
  -- Minutes, fractions allowed (a test may decide within seconds on a local run).
  wait_minutes double precision not null check (wait_minutes > 0 and wait_minutes <= 43200),
  decide_at timestamptz not null,
  status text not null default 'testing' check (status in ('testing', 'decided', 'cancelled')),
  -- The winning part (1–3) and when; `decision` says why in the user's words (a tie, no data).
  winner_part smallint check (winner_part between 1 and 3),
  decided_at timestamptz,
  decision text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index ab_tests_user_idx on ab_tests (user_id, id);
