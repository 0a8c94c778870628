-- The sending account a suppression came through (a bounce or complaint of that account's
-- mail), so the suppression module can take an address off that account's Mailgun list
-- without asking the delivery engine which account a send used. Null for suppressions a
-- user or an import made, and once the account is deleted.
alter table suppressions
  add column account_id bigint references sending_accounts (id) on delete set null;
