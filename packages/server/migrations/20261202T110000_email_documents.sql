-- The email builder's document beside each message's HTML (issue 46): templates, sends
-- (Edit Scheduled Email and History's "edit" start from it), drip steps and their follow-ups,
-- and a drip campaign's signature. The engine composes from the HTML alone and never reads
-- these; null means the HTML was written by hand (it opens in HTML mode).
alter table templates add column document jsonb;
alter table sends add column document jsonb;
alter table campaign_steps add column body_document jsonb;
alter table campaigns add column signature_document jsonb;
