-- An operator's daily cap for an SMTP or Gmail account (issue 30). The account form keeps the
-- spec's Maximum Email per Day of 1 to 1,000 (mail_per_day, the user's own); a self-hoster
-- whose server sends more asks the operator, who sets this one (operator area or admin CLI,
-- audited). Null: the user's own setting holds. Set, it replaces it, higher or lower.
alter table sending_accounts
  add column operator_mail_per_day integer
    check (operator_mail_per_day between 1 and 10000000);
