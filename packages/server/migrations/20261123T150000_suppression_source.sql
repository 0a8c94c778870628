-- Where a suppression came from, kept with it for the bounce review: the path that
-- wrote it (an SMTP answer, a Mailgun event, the user) and the send whose message
-- bounced or drew the complaint. The provider's own words stay in message/description.
alter table suppressions
  add column source text check (source in ('smtp', 'mailgun', 'user', 'import')),
  add column send_id bigint references sends (id) on delete set null;
