-- Counts the notifications table shows (total, unread), kept current by statement-level
-- triggers in the same transaction as the change, so list pages never count(*) them
-- (DESIGN §4). Statement-level with transition tables: a bulk insert of N rows costs one
-- counter update per user, not N.

create table notification_counters (
  user_id bigint primary key references users (id) on delete cascade,
  total integer not null default 0 check (total >= 0),
  unread integer not null default 0 check (unread >= 0 and unread <= total),
  updated_at timestamptz not null default now()
);

-- Adds per-user deltas. Existing rows are updated first: an INSERT … ON CONFLICT would
-- check the proposed row (a negative delta) against the CHECK before finding the conflict.
create function notification_counters_apply(deltas jsonb) returns void language sql as $$
  with delta as (
    select (d ->> 'user_id')::bigint as user_id, (d ->> 'total')::int as total, (d ->> 'unread')::int as unread
    from jsonb_array_elements(deltas) as d
  ), updated as (
    update notification_counters as counter
    set total = counter.total + delta.total, unread = counter.unread + delta.unread, updated_at = now()
    from delta where counter.user_id = delta.user_id
    returning counter.user_id
  )
  insert into notification_counters as counter (user_id, total, unread)
  select delta.user_id, delta.total, delta.unread from delta
  where not exists (select 1 from updated where updated.user_id = delta.user_id)
  on conflict (user_id) do update set
    total = counter.total + excluded.total,
    unread = counter.unread + excluded.unread,
    updated_at = now();
$$;

create function notification_counters_after_insert() returns trigger language plpgsql as $$
begin
  perform notification_counters_apply(coalesce((
    select jsonb_agg(jsonb_build_object('user_id', user_id, 'total', total, 'unread', unread))
    from (select user_id, count(*) as total, count(*) filter (where read_at is null) as unread
          from new_rows group by user_id) as grouped), '[]'));
  return null;
end $$;

create function notification_counters_after_delete() returns trigger language plpgsql as $$
begin
  -- Rows deleted by the cascade from users have no counter row left to update.
  perform notification_counters_apply(coalesce((
    select jsonb_agg(jsonb_build_object('user_id', user_id, 'total', -total, 'unread', -unread))
    from (select user_id, count(*) as total, count(*) filter (where read_at is null) as unread
          from old_rows where exists (select 1 from users where users.id = old_rows.user_id)
          group by user_id) as grouped), '[]'));
  return null;
end $$;

create function notification_counters_after_update() returns trigger language plpgsql as $$
begin
  perform notification_counters_apply(coalesce((
    select jsonb_agg(jsonb_build_object('user_id', user_id, 'total', 0, 'unread', unread))
    from (select new_rows.user_id,
                 count(*) filter (where new_rows.read_at is null) - count(*) filter (where old_rows.read_at is null) as unread
          from new_rows join old_rows on old_rows.id = new_rows.id
          group by new_rows.user_id) as grouped
    where unread <> 0), '[]'));
  return null;
end $$;

create trigger notification_counters_insert after insert on notifications
  referencing new table as new_rows for each statement execute function notification_counters_after_insert();
create trigger notification_counters_delete after delete on notifications
  referencing old table as old_rows for each statement execute function notification_counters_after_delete();
-- Notifications never move between users; only read_at changes what is counted.
create trigger notification_counters_update after update on notifications
  referencing old table as old_rows new table as new_rows for each statement execute function notification_counters_after_update();

-- Rows written before this migration.
insert into notification_counters (user_id, total, unread)
select user_id, count(*), count(*) filter (where read_at is null) from notifications group by user_id;
