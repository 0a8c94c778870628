-- The two foreign keys left on delivery_events (`send_id`, `account_id`; the migration
-- `delivery_events_lean_keys` took the others off) each cost, for every event inserted, a
-- lookup and a key-share lock of the same send's and account's row: a settle of 1,000
-- recipients made 2,000 of them. What they did when a send or an account goes is done here
-- by statement triggers, once per delete; every event is inserted from a row of its send.
-- Measured in B2 (bench/RESULTS.md, 2026-11-27): PostgreSQL 46 → 41 µs of CPU a recipient,
-- the engine's statements alone 34,750 → 38,451 recipients/s.
alter table delivery_events drop constraint if exists delivery_events_send_id_fkey;
alter table delivery_events drop constraint if exists delivery_events_account_id_fkey;

create function delivery_events_of_deleted_sends() returns trigger language plpgsql as $$
begin
  delete from delivery_events e using deleted_sends d where e.send_id = d.id;
  return null;
end $$;
create trigger sends_delivery_events_deleted after delete on sends
  referencing old table as deleted_sends
  for each statement execute function delivery_events_of_deleted_sends();

create function delivery_events_of_deleted_accounts() returns trigger language plpgsql as $$
begin
  update delivery_events e set account_id = null from deleted_accounts d where e.account_id = d.id;
  return null;
end $$;
create trigger sending_accounts_delivery_events_deleted after delete on sending_accounts
  referencing old table as deleted_accounts
  for each statement execute function delivery_events_of_deleted_accounts();
