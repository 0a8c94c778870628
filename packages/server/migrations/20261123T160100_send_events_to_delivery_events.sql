-- The opens and clicks recorded so far move to the one event table (data only; the old
-- table is dropped in the next file).
insert into delivery_events (user_id, account_id, send_id, recipient_id, email, type, source, link_id, occurred_at, created_at)
select s.user_id, s.account_id, e.send_id, e.recipient_id, r.email, e.type, 'tracking', e.link_id, e.created_at, e.created_at
  from send_events e
  join sends s on s.id = e.send_id
  join send_recipients r on r.id = e.recipient_id
 order by e.id;
