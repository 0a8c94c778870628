-- The SMTP daily cap over a rolling 24 hours (issue 43 item 4, R43). It was counted per day of
-- the user's time zone (`account_daily_counts`), so a change of zone across the date line
-- started a new day at once: a cap of 3 let 6 go out within a minute. Providers count their
-- own limits over the last 24 hours; so does this, and no setting of the user moves it.
--
-- One row per reservation: dispatch reserves up to a claim's worth of the window's room under
-- an advisory lock per account (two sends from one account never pass the cap together) and,
-- once the claim is done, gives back what it did not send. `counted_at` is the latest moment
-- the row's messages can have gone out: at first the end of the claim's lease (no message
-- starts past it, R4), then the moment the claim ended. The window counts a row until 24
-- hours after it, so the cap errs on the side of sending less, never more; a worker that dies
-- keeps its reservation counted. `account_daily_counts` is no longer written (kept for the
-- workers of a rolling deploy still running the old code; a later migration drops it).
create table account_cap_reservations (
  id bigint generated always as identity primary key,
  account_id bigint not null references sending_accounts (id) on delete cascade,
  counted_at timestamptz not null,
  sent integer not null check (sent >= 0),
  created_at timestamptz not null default now()
);
-- The window's sum and its oldest rows per account; rows past the window are deleted by the
-- next reservation of their account.
create index account_cap_reservations_window_idx on account_cap_reservations (account_id, counted_at);
