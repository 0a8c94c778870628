-- Suppressions recorded before the column existed: their account is their send's.
update suppressions s
   set account_id = sends.account_id
  from sends
 where sends.id = s.send_id and s.account_id is null;
