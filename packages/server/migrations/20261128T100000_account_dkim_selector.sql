-- The DKIM selector an SMTP account's server signs with (issue 31 §1): the pre-send check
-- looks for the key at `<selector>._domainkey.<From domain>`. Optional; a Mailgun account's
-- selector is read from Mailgun's domain API instead.
alter table sending_accounts
  add column dkim_selector text check (dkim_selector ~ '^[A-Za-z0-9._-]{1,63}$');
