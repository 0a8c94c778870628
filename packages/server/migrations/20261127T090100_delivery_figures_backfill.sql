-- The daily counters recounted from the events with the new definitions
-- (20261127T090000_delivery_figures.sql), so the days before this change read the same way
-- as the days after. One pass over delivery_events.

-- Repeated opens and clicks are not first: only the earliest of each recipient's counts.
update delivery_events e set is_first = false
  from (select id, row_number() over (partition by recipient_id, type order by occurred_at, id) as nth
          from delivery_events
         where type in ('opened', 'clicked') and recipient_id is not null) ranked
 where e.id = ranked.id and ranked.nth > 1;

delete from account_daily_stats;

insert into account_daily_stats (account_id, day, user_id, recipients, accepted, delivered, deferred, failed,
                                 bounced_hard, bounced_soft, unknown, opened, clicked, complained, unsubscribed,
                                 opened_events, clicked_events)
select n.account_id, (n.occurred_at at time zone u.time_zone)::date, n.user_id,
       -- Before this change every failed event of a recipient was written, and the engine's own
       -- (a refusal at handover) carried no provider event id: those are the recipients.
       count(*) filter (where n.type in ('accepted', 'unknown') or (n.type = 'failed' and n.provider_event_id is null)),
       -- A recipient's repeated failure, complaint or delivery reports were each an event then:
       -- counted once per recipient (and day) now.
       count(*) filter (where n.type = 'accepted'), count(distinct n.recipient_id) filter (where n.type = 'delivered'),
       count(*) filter (where n.type = 'deferred'), count(distinct n.recipient_id) filter (where n.type = 'failed'),
       count(distinct n.recipient_id) filter (where n.type = 'failed' and n.severity = 'permanent'),
       count(distinct n.recipient_id) filter (where n.type = 'failed' and n.severity is distinct from 'permanent'),
       count(*) filter (where n.type = 'unknown'),
       count(*) filter (where n.type = 'opened' and n.is_first),
       count(*) filter (where n.type = 'clicked' and n.is_first),
       count(distinct n.recipient_id) filter (where n.type = 'complained'),
       count(distinct n.recipient_id) filter (where n.type = 'unsubscribed'),
       count(*) filter (where n.type = 'opened'), count(*) filter (where n.type = 'clicked')
  from delivery_events n
  join users u on u.id = n.user_id
  left join sends s on s.id = n.send_id
 where n.account_id is not null and n.recipient_id is not null
   and s.source is distinct from 'spam-test'
 group by 1, 2, 3;

-- History's Sent is what the provider accepted, a bounce after acceptance included.
update sends s set sent_count = c.accepted
  from (select send_id, count(*) filter (where sent_at is not null)::int as accepted
          from send_recipients group by send_id) c
 where s.id = c.send_id and s.status in ('finished', 'failed', 'cancelled') and s.sent_count <> c.accepted;
