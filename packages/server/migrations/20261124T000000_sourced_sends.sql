-- Sources other than lists (a drip step, a spam test) give the engine their recipients when
-- the send is created; each recipient may carry headers of its own (a drip follow-up's
-- In-Reply-To and References, so it stays in the thread).
alter table sends drop constraint if exists sends_source_check;
alter table sends add constraint sends_source_check check (source in ('lists', 'drip', 'spam-test'));
alter table send_recipients add column headers jsonb;
