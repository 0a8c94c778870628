-- Where a send's recipients come from (the engine's source): its lists today; drip steps,
-- spam tests and resends add their own value and snapshot, and share everything after it.
alter table sends add column source text not null default 'lists' check (source in ('lists'));
