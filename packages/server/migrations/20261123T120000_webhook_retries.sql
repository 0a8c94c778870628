-- Mailgun retries a webhook it could not deliver for up to 8 hours, with the original
-- signature block (R31). A token seen again is then either that retry (the same event:
-- answered 200, stored once) or its signature reused on other data (refused with 406), so
-- the token remembers the event it came with. Rows from before this column have none and
-- are refused as before; they are pruned within a day.
alter table webhook_tokens add column event_id text;

-- The hourly cleanup deletes applied events past PROVIDER_EVENT_RETENTION_DAYS (R30);
-- without this index each run would read the whole table. Pending events are never
-- pruned (they have no applied_at), so they are not in it.
create index provider_events_applied_idx on provider_events (applied_at) where applied_at is not null;
