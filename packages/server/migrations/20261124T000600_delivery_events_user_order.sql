-- The dashboard's delivery-event table pages a user's events newest first, with the id as
-- tie-breaker, all kinds or one kind. With the id in the index the order is read straight
-- off it; a kind gets an index of its own, since a rare kind (complaints) filtered out of
-- the all-kinds index would mean reading millions of entries before the first match
-- (B11 at 10M events: 3.4 s for the failed events' first page before, see bench/RESULTS.md).
create index delivery_events_user_order_idx on delivery_events (user_id, occurred_at, id);
create index delivery_events_user_type_idx on delivery_events (user_id, type, occurred_at, id);
drop index if exists delivery_events_user_idx;
