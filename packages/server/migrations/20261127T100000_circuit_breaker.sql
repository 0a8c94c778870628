-- The circuit breaker (issue 31 §2): a send pauses itself once, when after at least 200
-- messages handed over its hard bounces or its complaints pass the account's line.
--
-- The lines are the account's (its settings), in percent of the messages handed over:
-- 5 % hard bounces and 0.1 % complaints unless the user sets others (Gmail's own line for
-- complaints is 0.3 %, so 0.1 % stops a send well before it).
alter table sending_accounts
  add column breaker_bounce_percent double precision not null default 5
    check (breaker_bounce_percent > 0 and breaker_bounce_percent <= 100),
  add column breaker_complaint_percent double precision not null default 0.1
    check (breaker_complaint_percent > 0 and breaker_complaint_percent <= 100);

-- When the breaker paused the send, and why in the user's words (the progress card and
-- History show it while it is paused). Set once: a send the user resumed is not paused again.
alter table sends
  add column breaker_tripped_at timestamptz,
  add column breaker_reason text;

-- The same for a drip campaign, whose messages are one engine send each: the campaign is
-- stopped (`running` false) and says why until the user starts it again. Started again, it
-- is judged on its messages after `breaker_after_message_id` (the last one judged at the stop).
alter table campaigns
  add column breaker_tripped_at timestamptz,
  add column breaker_reason text,
  add column breaker_after_message_id bigint not null default 0;
