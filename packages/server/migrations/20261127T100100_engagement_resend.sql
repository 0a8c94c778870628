-- Re-send by engagement (issue 31 §3): a send of Send Email's kind (source 'lists') whose
-- audience, taken at its snapshot, is a previous send's recipients filtered by what they did
-- (did not open, opened, clicked, or clicked one link) rather than its lists' members.
alter table sends
  add column resend_of bigint references sends (id) on delete set null,
  add column resend_audience text check (resend_audience in ('not-opened', 'opened', 'clicked')),
  add column resend_link_id bigint;
