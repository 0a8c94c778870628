-- Every delivery event is written for a send's recipient (the engine's settles, Mailgun's
-- events, tracking, the unsubscribe link), so its send's `on delete cascade` already takes
-- it away with the send, the send's recipients and the send's user. The foreign keys on
-- `recipient_id` and `user_id` only repeated that, and each cost a lookup and a row lock per
-- event: a 1,000-recipient Mailgun batch spent a quarter of its settle checking them (B2,
-- see bench/RESULTS.md). `send_recipients.user_id` carries no foreign key for the same
-- reason. `send_id`, `account_id` (set null when an account goes) and `link_id` keep theirs.
alter table delivery_events drop constraint if exists delivery_events_recipient_id_fkey;
alter table delivery_events drop constraint if exists delivery_events_user_id_fkey;
