-- A claim in a row of its own (issue 33 §2): one row per provider call or SMTP claim, with
-- its fence (the lease token), its holder's presence key, its lease and the range of
-- recipient ids it took. The reaper, the watchdog and a lost claim's release find claims
-- here instead of through an index on the recipients' status.
--
-- Why: every index on send_recipients that names a column a claim or a settle writes
-- (status, in the work index) made each of those writes a new row version with an entry in
-- every index (four, the token's at a random place in its tree): 2 × 4 index insertions
-- per recipient. With no such index, and room left on each page for a row's next two
-- versions (fillfactor 34: a claim's and a settle's, before the first is pruned; the
-- intake's delivered and opened then reuse the room), both are rewritten in place
-- (heap-only tuples). Measured: PostgreSQL's CPU for a claim and a settle 46 → 13 µs a
-- recipient; in B2, 98 % of the rewrites in place, and 200,000 recipients' rows and
-- indexes after their sends 172 MB against 192 MB (the dead versions and index entries of
-- rewrites not in place took more room than the pages' free space does).
create table send_claims (
  lease_token uuid primary key,
  send_id bigint not null references sends (id) on delete cascade,
  worker_key bigint,
  lease_until timestamptz not null,
  first_id bigint not null,
  last_id bigint not null,
  created_at timestamptz not null default now()
);
create index send_claims_send_idx on send_claims (send_id);

-- Claims in flight when this migration runs, as the reaper will look for them.
insert into send_claims (lease_token, send_id, worker_key, lease_until, first_id, last_id, created_at)
select lease_token, send_id, max(worker_key), max(lease_until), min(id), max(id), min(updated_at)
  from send_recipients
 where status = 'sending' and lease_token is not null
 group by lease_token, send_id;
-- A 'sending' recipient without a lease (none is written so) is given back.
update send_recipients set status = 'pending', next_attempt_at = now()
 where status = 'sending' and lease_token is null;

-- Every recipient of a send up to this id has been claimed once (0: none yet): the next
-- claim of new recipients starts above it. One given back (or deferred) carries `next_attempt_at`, and
-- is found through the due index below.
alter table sends add column claimed_to bigint not null default 0;

drop index send_recipients_work_idx;
create index send_recipients_send_idx on send_recipients (send_id, id);
create index send_recipients_due_idx on send_recipients (send_id, next_attempt_at) where next_attempt_at is not null;
alter table send_recipients set (fillfactor = 34);
