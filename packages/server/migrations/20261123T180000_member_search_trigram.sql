-- Contains-search on the member table (ILIKE '%q%' over email or name) from one trigram
-- index instead of a scan of the whole list (B4: search p95 548 ms at 1M members without
-- it, 18 ms with it). The index is on email || ' ' || fullname: the search ANDs that
-- expression's ILIKE with the columns' own OR (paging.ts `searchIndexed`), which holds
-- whenever a column matches, so the matches, order and total are unchanged.
-- Why one index and its pending list limit (B3, 1M-row import, median of 3 on the shared
-- 2-core machine; 55,497 rows/s without any): two indexes, one per column, with a 1 MB
-- pending list: 37,096 rows/s; this one index with 2 MB: 45,390 rows/s. Inserts go to the
-- pending list (fastupdate, the default) and are merged into the index in bulk when it
-- outgrows gin_pending_list_limit; fastupdate = off merged 3x slower still. A search reads
-- the whole pending list and an import leaves up to the limit behind until autovacuum: at
-- 4 MB on two indexes a search took 62 ms instead of 19 ms, so the limit stays small.
-- pg_trgm is a trusted extension since PostgreSQL 13: a database owner who is not a
-- superuser may create it. Where it cannot be created (older server, not installed, no
-- CREATE right), this migration still succeeds and search scans as before; creating the
-- extension and this index by hand later is enough. The operator class is looked up in the
-- schema the extension lives in, which need not be on the search_path.
do $$
declare
  trgm_schema name;
begin
  begin
    create extension if not exists pg_trgm;
  exception when others then
    raise notice 'pg_trgm is not available (%); member search stays a scan', sqlerrm;
  end;
  select n.nspname into trgm_schema
    from pg_extension e join pg_namespace n on n.oid = e.extnamespace
   where e.extname = 'pg_trgm';
  if trgm_schema is not null then
    execute format('create index list_members_search_trgm_idx on list_members using gin '
                   '((email || '' '' || fullname) %I.gin_trgm_ops) with (gin_pending_list_limit = 2048)', trgm_schema);
  end if;
end $$;
