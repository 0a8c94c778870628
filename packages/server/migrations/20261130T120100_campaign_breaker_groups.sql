-- Data for 20261130T120000 (issue 44 §4): every drip campaign's messages already sent join
-- its breaker group, and the group takes the campaign's breaker state as it stands: tripped
-- with its reason while the campaign is stopped by the breaker; started again after a trip,
-- judged on the messages made after the last one before its stop (`breaker_after_message_id`).
update sends s set breaker_group = 'campaign:' || m.campaign_id
  from campaign_messages m
 where m.send_id = s.id and s.breaker_group is null;

insert into breaker_groups (key, user_id, account_id, tripped_at, reason, judged_from)
select 'campaign:' || c.id, c.user_id, c.account_id, c.breaker_tripped_at,
       case when c.breaker_tripped_at is not null then c.breaker_reason end,
       case when c.breaker_after_message_id > 0 and c.breaker_reason is null
            then (select m.created_at + interval '1 microsecond' from campaign_messages m where m.id = c.breaker_after_message_id)
       end
  from campaigns c
 where exists (select 1 from campaign_messages m where m.campaign_id = c.id)
on conflict (key) do nothing;
