-- A verification may be of a mailing list's members ("Verify Your List"): at its end the
-- members are marked and the list shows Verified with the date.
alter table verification_jobs add column list_id bigint references mailing_lists (id) on delete set null;
