-- The verify-lists upsell of Send Email (issue 47, spec §7 "POST verify (mailingLists,
-- storageId)"): a list verification started from a send's confirmation carries the send's
-- storage id, so the send that waits for it (send-email's sends_after_verification) is
-- found when the verification ends, and its progress is told as VerifyEmailUpsell.
alter table verification_jobs add column storage_id text check (storage_id is null or length(storage_id) between 1 and 100);
create index verification_jobs_storage_idx on verification_jobs (user_id, storage_id) where storage_id is not null;
