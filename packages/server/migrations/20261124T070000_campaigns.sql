-- Drip campaigns: a campaign (a draft while the wizard runs, found again by its temporary
-- key), its steps (the sequence), its recipients with where each stands, and each message
-- handed to the delivery engine (exactly once per step and recipient).
create table campaigns (
  id bigint generated always as identity primary key,
  user_id bigint not null references users (id) on delete cascade,
  account_id bigint references sending_accounts (id) on delete set null,
  temporary_key text unique,
  is_draft boolean not null default true,
  step int not null default 1 check (step between 1 and 6),
  title text not null default '',
  sender_name text not null default '',
  alias text not null default '',
  use_subdomain boolean not null default false,
  from_address text not null default '',
  signature text not null default '',
  running boolean not null default false,
  track_opens boolean not null default true,
  track_clicks boolean not null default false,
  schedule_at timestamptz,
  accept_law boolean not null default false,
  mail_per_day int not null default 500 check (mail_per_day between 1 and 100000),
  mail_per_delay int not null default 120 check (mail_per_delay >= 120),
  daily_plan jsonb not null,
  variables jsonb not null default '[]'::jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index campaigns_user_idx on campaigns (user_id, created_at desc, id desc);
create index campaigns_running_idx on campaigns (account_id) where running and not is_draft;

create table campaign_steps (
  id bigint generated always as identity primary key,
  campaign_id bigint not null references campaigns (id) on delete cascade,
  user_id bigint not null,
  position int not null,
  subject text not null,
  body text not null,
  reply_to text not null default '',
  global_reply boolean not null default false,
  period int not null default 5 check (period >= 0),
  frequency text not null default 'day' check (frequency in ('hour', 'day', 'week', 'month')),
  deleted_at timestamptz,
  created_at timestamptz not null default now()
);
create index campaign_steps_campaign_idx on campaign_steps (campaign_id, position) where deleted_at is null;

create table campaign_recipients (
  id bigint generated always as identity primary key,
  campaign_id bigint not null references campaigns (id) on delete cascade,
  user_id bigint not null,
  email text not null,
  name text not null default '',
  variables jsonb not null default '{}'::jsonb,
  paused boolean not null default false,
  state text not null default 'active' check (state in ('active', 'done', 'stopped')),
  stop_reason text,
  next_position int not null default 1,
  -- When the next step becomes due (the previous send plus its wait); the campaign's
  -- weekday windows decide when within that it goes.
  due_at timestamptz not null default now(),
  last_sent_at timestamptz,
  thread_message_id text,
  thread_subject text,
  created_at timestamptz not null default now()
);
create unique index campaign_recipients_email_key on campaign_recipients (campaign_id, lower(email));
create index campaign_recipients_due_idx on campaign_recipients (campaign_id, due_at, id)
  where state = 'active' and not paused;

create table campaign_messages (
  id bigint generated always as identity primary key,
  campaign_id bigint not null references campaigns (id) on delete cascade,
  recipient_id bigint not null references campaign_recipients (id) on delete cascade,
  step_id bigint not null references campaign_steps (id) on delete cascade,
  user_id bigint not null,
  account_id bigint,
  position int not null,
  send_id bigint,
  message_id text,
  subject text not null,
  body text not null default '',
  status text not null default 'queued' check (status in ('queued', 'sent', 'failed')),
  error text,
  sent_at timestamptz,
  opened_at timestamptz,
  clicked_at timestamptz,
  -- When the scheduler last asked the engine about it (the least recently asked go first).
  synced_at timestamptz,
  created_at timestamptz not null default now()
);
create unique index campaign_messages_once on campaign_messages (step_id, recipient_id);
create index campaign_messages_campaign_idx on campaign_messages (campaign_id, created_at);
create index campaign_messages_recipient_idx on campaign_messages (recipient_id, position);
create index campaign_messages_open_idx on campaign_messages (synced_at nulls first, id)
  where status = 'queued' or (status = 'sent' and clicked_at is null);
-- The account's throttle across its campaigns: the last drip mail and when it went.
create index campaign_messages_account_idx on campaign_messages (account_id, created_at desc);
