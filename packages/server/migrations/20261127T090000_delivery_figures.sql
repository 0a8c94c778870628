-- One counting definition (R33, contracts `reports/figures.ts`, GLOSSARY.md): the dashboard's
-- daily counters count each recipient once, as History, the details, the campaign views and
-- the exports do.
--
-- `is_first`: the event is the recipient's first of its kind (its first open, its first
-- click). Every open and click stays an event of its own, but only the first moves a figure.
-- Delivered, failed, complained and unsubscribed events are written once per recipient by
-- the intake, so for them it is always true; so it is for the engine's own settles.
alter table delivery_events add column is_first boolean not null default true;

-- The counters gain the figures the dashboard was deriving wrongly: recipients (each
-- recipient once, when the engine settled its message: accepted, refused or unknown; a
-- bounce after acceptance is the same recipient, not a second one) and the bounces split
-- into hard and soft. `failed` stays the bounces in all (hard + soft).
alter table account_daily_stats
  add column recipients integer not null default 0,
  add column bounced_hard integer not null default 0,
  add column bounced_soft integer not null default 0,
  -- Every open and click event, first or not: the event table's totals (the figures are
  -- `opened` and `clicked`, each recipient once).
  add column opened_events integer not null default 0,
  add column clicked_events integer not null default 0;

-- The statement trigger, with the definitions: only events of a recipient (an event a
-- provider sends about an address Sendwell sent nothing to counts for nobody); a spam test is
-- not a send; a failed event adds a recipient only when the message was never accepted (a
-- refusal at handover), since an accepted one was counted when it was accepted; opens and
-- clicks count the recipient's first. The events are first counted per send, so `sends` is
-- read once per send a statement touched (a settle of 1,000 messages: one read), and
-- `send_recipients.sent_at` only for failed events (few).
create or replace function delivery_events_count() returns trigger language plpgsql as $$
begin
  with counted as (
    select n.account_id, n.user_id, n.send_id, (n.occurred_at at time zone u.time_zone)::date as day,
           count(*) filter (where n.type in ('accepted', 'unknown')
                               or (n.type = 'failed' and not exists (
                                     select 1 from send_recipients r where r.id = n.recipient_id and r.sent_at is not null)))
             as recipients,
           count(*) filter (where n.type = 'accepted') as accepted,
           count(*) filter (where n.type = 'delivered') as delivered,
           count(*) filter (where n.type = 'deferred') as deferred,
           count(*) filter (where n.type = 'failed') as failed,
           count(*) filter (where n.type = 'failed' and n.severity = 'permanent') as bounced_hard,
           count(*) filter (where n.type = 'failed' and n.severity is distinct from 'permanent') as bounced_soft,
           count(*) filter (where n.type = 'unknown') as unknown,
           count(*) filter (where n.type = 'opened' and n.is_first) as opened,
           count(*) filter (where n.type = 'clicked' and n.is_first) as clicked,
           count(*) filter (where n.type = 'complained') as complained,
           count(*) filter (where n.type = 'unsubscribed') as unsubscribed,
           count(*) filter (where n.type = 'opened') as opened_events,
           count(*) filter (where n.type = 'clicked') as clicked_events
      from new_events n join users u on u.id = n.user_id
     where n.account_id is not null and n.recipient_id is not null
     group by 1, 2, 3, 4)
  insert into account_daily_stats as a (account_id, day, user_id, recipients, accepted, delivered, deferred, failed,
                                        bounced_hard, bounced_soft, unknown, opened, clicked, complained, unsubscribed,
                                        opened_events, clicked_events)
  select c.account_id, c.day, c.user_id, sum(c.recipients), sum(c.accepted), sum(c.delivered), sum(c.deferred),
         sum(c.failed), sum(c.bounced_hard), sum(c.bounced_soft), sum(c.unknown), sum(c.opened), sum(c.clicked),
         sum(c.complained), sum(c.unsubscribed), sum(c.opened_events), sum(c.clicked_events)
    from counted c left join sends s on s.id = c.send_id
   where s.source is distinct from 'spam-test'
   group by c.account_id, c.day, c.user_id
   -- In key order, so two statements moving the same days queue rather than deadlock.
   order by 1, 2
  on conflict (account_id, day) do update set
     recipients = a.recipients + excluded.recipients,
     accepted = a.accepted + excluded.accepted, delivered = a.delivered + excluded.delivered,
     deferred = a.deferred + excluded.deferred, failed = a.failed + excluded.failed,
     bounced_hard = a.bounced_hard + excluded.bounced_hard, bounced_soft = a.bounced_soft + excluded.bounced_soft,
     unknown = a.unknown + excluded.unknown, opened = a.opened + excluded.opened,
     clicked = a.clicked + excluded.clicked, complained = a.complained + excluded.complained,
     unsubscribed = a.unsubscribed + excluded.unsubscribed,
     opened_events = a.opened_events + excluded.opened_events,
     clicked_events = a.clicked_events + excluded.clicked_events, updated_at = now();
  return null;
end $$;

-- The campaign views count from their messages' copies of the engine's outcomes: delivered,
-- complained and unsubscribed join opened and clicked there, so a drip step's figures read
-- the same definition as a send's.
alter table campaign_messages
  add column delivered_at timestamptz,
  add column complained_at timestamptz,
  add column unsubscribed_at timestamptz;

-- The temporary suppression rule (contracts `TEMPORARY_SUPPRESSION`): an address whose
-- messages soft-bounced three times within 15 days is held back for 30 days. `expires_at`
-- is when a suppression lifts (null: never); only temporary suppressions carry one.
alter table suppressions add column expires_at timestamptz;

-- The soft bounces the rule counts, per user and address: pruned past the rule's window by
-- the hourly cleanup (R30).
create table soft_bounces (
  id bigint generated always as identity primary key,
  user_id bigint not null references users (id) on delete cascade,
  email text not null,
  send_id bigint references sends (id) on delete set null,
  bounced_at timestamptz not null default now()
);
create index soft_bounces_address_idx on soft_bounces (user_id, lower(email), bounced_at);
create index soft_bounces_bounced_idx on soft_bounces (bounced_at);
