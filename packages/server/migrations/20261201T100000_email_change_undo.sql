-- Undoing an email change from the old address (issue 43 item 2, R41). The old address is
-- told when a change is asked for and when it is confirmed, with a link that cancels the
-- change or, once confirmed, puts the old address back for a week: an attacker who knows the
-- password can confirm a change from their own mailbox in seconds, so a link that only
-- cancelled a waiting change would come too late. The link is an HMAC of the row's id under
-- the server's signing key (the same link in both mails, nothing secret stored here).
alter table email_changes
  -- The account's email when the change was asked for (set again when it is confirmed): where
  -- the notices go and what an undo puts back. Null on rows made before this column.
  add column old_email text,
  -- When the link to the new address was opened (`used_at` is set then too, and when a change
  -- is spent without happening: a newer request, a password change or reset, "sign out
  -- everywhere", Cancel).
  add column confirmed_at timestamptz,
  -- When an undo from the old address put `old_email` back; this change and every later one
  -- of the user can no longer be undone (so a later change's link cannot take it back again).
  add column reverted_at timestamptz;
