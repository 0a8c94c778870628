-- A click is an open (issue 45 §3; contracts figures.ts): recipients who clicked a tracked
-- link but whose client never loaded the open pixel are counted as opened, as new clicks are
-- now (`applyOutcomes` records an open implied by the first click). Data only: each such
-- recipient gets its first open, dated by its first click, with the implied open's event
-- (the dashboard counts `account_daily_stats` from events, moved by the table's trigger),
-- and the sends' opened counters are recounted from their recipients.
with implied as (
  update send_recipients set opened_at = clicked_at, updated_at = now()
   where clicked_at is not null and opened_at is null
  returning id, send_id, user_id, email, clicked_at
), recorded as (
  insert into delivery_events (user_id, account_id, send_id, recipient_id, email, type, source, detail,
                               occurred_at, is_first)
  select i.user_id, s.account_id, i.send_id, i.id, i.email, 'opened', 'tracking',
         'Counted from a click: the reader opened the message to click in it.', i.clicked_at, true
    from implied i join sends s on s.id = i.send_id
  returning send_id
)
update sends s set opened_count = c.opened, updated_at = now()
  from (select r.send_id, count(*) filter (where r.opened_at is not null)::int as opened
          from send_recipients r
         where r.send_id in (select distinct send_id from recorded)
         group by r.send_id) c
 where s.id = c.send_id;
