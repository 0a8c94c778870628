-- One provider-neutral record of what happened to each message (DESIGN §6): written by
-- the SMTP and Gmail results as dispatch settles them, by Mailgun's batch answers and its
-- webhook events, by the open pixel and tracked links, and by unsubscribes. History, the
-- delivery dashboard and the bounce review read it; a new provider adds a parser, not a table.
create table delivery_events (
  id bigint generated always as identity primary key,
  user_id bigint not null references users (id) on delete cascade,
  account_id bigint references sending_accounts (id) on delete set null,
  send_id bigint references sends (id) on delete cascade,
  recipient_id bigint references send_recipients (id) on delete cascade,
  email text not null,
  -- accepted: the provider took the message; delivered: it reports the receiving server
  -- did; deferred: a temporary failure to be retried; failed: given up (severity says
  -- whether the address is at fault); unknown: the answer never came.
  type text not null check (type in ('accepted', 'delivered', 'deferred', 'failed', 'unknown',
                                     'opened', 'clicked', 'complained', 'unsubscribed')),
  severity text check (severity in ('temporary', 'permanent')),
  -- Who told us: our SMTP session (SMTP and Gmail accounts), Mailgun (its API answer or a
  -- webhook event), our tracking pixel and links, or the recipient (unsubscribe link).
  source text not null check (source in ('smtp', 'mailgun', 'tracking', 'recipient')),
  -- The provider's id of the event, when it has one: each is recorded once (R10).
  provider_event_id text,
  -- The provider's or receiving server's words (an SMTP answer, a DSN, Mailgun's delivery
  -- status), clipped to 1,000 characters.
  detail text,
  link_id bigint references send_links (id) on delete set null,
  occurred_at timestamptz not null default now(),
  created_at timestamptz not null default now()
);
create unique index delivery_events_provider_event_key on delivery_events (source, provider_event_id)
  where provider_event_id is not null;
create index delivery_events_send_idx on delivery_events (send_id, type, id);
create index delivery_events_user_idx on delivery_events (user_id, occurred_at);

-- Per account and day (in the user's time zone), what its messages did: moved by every
-- statement that inserts events, once per statement for all the rows it inserted.
create table account_daily_stats (
  account_id bigint not null references sending_accounts (id) on delete cascade,
  day date not null,
  user_id bigint not null references users (id) on delete cascade,
  accepted integer not null default 0,
  delivered integer not null default 0,
  deferred integer not null default 0,
  failed integer not null default 0,
  unknown integer not null default 0,
  opened integer not null default 0,
  clicked integer not null default 0,
  complained integer not null default 0,
  unsubscribed integer not null default 0,
  updated_at timestamptz not null default now(),
  primary key (account_id, day)
);
create index account_daily_stats_user_idx on account_daily_stats (user_id, day);

create function delivery_events_count() returns trigger language plpgsql as $$
begin
  insert into account_daily_stats as a (account_id, day, user_id, accepted, delivered, deferred, failed,
                                        unknown, opened, clicked, complained, unsubscribed)
  select n.account_id, (n.occurred_at at time zone u.time_zone)::date, n.user_id,
         count(*) filter (where n.type = 'accepted'), count(*) filter (where n.type = 'delivered'),
         count(*) filter (where n.type = 'deferred'), count(*) filter (where n.type = 'failed'),
         count(*) filter (where n.type = 'unknown'), count(*) filter (where n.type = 'opened'),
         count(*) filter (where n.type = 'clicked'), count(*) filter (where n.type = 'complained'),
         count(*) filter (where n.type = 'unsubscribed')
    from new_events n join users u on u.id = n.user_id
   where n.account_id is not null
   group by 1, 2, 3
   -- In key order, so two statements moving the same days queue rather than deadlock.
   order by 1, 2
  on conflict (account_id, day) do update set
     accepted = a.accepted + excluded.accepted, delivered = a.delivered + excluded.delivered,
     deferred = a.deferred + excluded.deferred, failed = a.failed + excluded.failed,
     unknown = a.unknown + excluded.unknown, opened = a.opened + excluded.opened,
     clicked = a.clicked + excluded.clicked, complained = a.complained + excluded.complained,
     unsubscribed = a.unsubscribed + excluded.unsubscribed, updated_at = now();
  return null;
end $$;

create trigger delivery_events_count after insert on delivery_events
  referencing new table as new_events for each statement execute function delivery_events_count();
