-- Contains-search on the member table (B4) from a trigram index kept OUTSIDE the import's
-- transaction. An index on list_members itself made search 30x faster (p95 548 -> 18 ms at
-- 1M members) but cost the CSV import a third of its speed (B3 71k -> 46k rows/s), because
-- every merged row paid for the GIN entry while the user waited. Here the search terms
-- live in their own table, filled after the members are committed by the
-- `lists.index-search` job, in slices, up to `mailing_lists.search_indexed_through` (the
-- highest member id indexed). A search reads the index for members up to that id and scans
-- the few members above it, so a member is found the moment it is committed. Members
-- already indexed whose email or name changes are kept current by the trigger below.
create table list_member_search (
  member_id bigint primary key references list_members (id) on delete cascade,
  list_id bigint not null,
  terms text not null
);
alter table mailing_lists add column search_indexed_through bigint not null default 0;

create function list_member_search_updated() returns trigger language plpgsql as $$
begin
  update list_member_search s
     set terms = n.email || ' ' || n.fullname
    from new_rows n join old_rows o on o.id = n.id
   where s.member_id = n.id
     and (n.email is distinct from o.email or n.fullname is distinct from o.fullname);
  return null;
end $$;
create trigger list_member_search_update after update on list_members
  referencing old table as old_rows new table as new_rows
  for each statement execute function list_member_search_updated();

-- pg_trgm is a trusted extension since PostgreSQL 13: a database owner who is not a
-- superuser may create it. Where it cannot be created, search still works (the terms
-- table is scanned) and creating the extension and this index by hand later is enough.
do $$
declare
  trgm_schema name;
begin
  begin
    create extension if not exists pg_trgm;
  exception when others then
    raise notice 'pg_trgm is not available (%); member search scans its terms', sqlerrm;
  end;
  select n.nspname into trgm_schema
    from pg_extension e join pg_namespace n on n.oid = e.extnamespace
   where e.extname = 'pg_trgm';
  if trgm_schema is not null then
    execute format('create index list_member_search_terms_idx on list_member_search using gin '
                   '(terms %I.gin_trgm_ops)', trgm_schema);
  end if;
end $$;
