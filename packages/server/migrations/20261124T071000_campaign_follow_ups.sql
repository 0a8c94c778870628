-- A step's follow-ups (spec §3 drip email): one when its email is not opened within some
-- days, one some days after the recipient clicks a given link. Each is sent at most once per
-- step and recipient, so a message is now unique per step, recipient and kind.
alter table campaign_steps add column follow_up jsonb, add column click_follow_up jsonb;
alter table campaign_messages
  add column kind text not null default 'step' check (kind in ('step', 'follow-up', 'click-follow-up'));
drop index campaign_messages_once;
create unique index campaign_messages_once on campaign_messages (step_id, recipient_id, kind);
