-- Signup forms and double opt-in (issue 48 §1, R47).
--
-- A list's public form lives at PUBLIC_URL/subscribe/<form_key>: a random key, not the
-- list's id, so nobody can walk every user's lists by counting and sign strangers up to
-- them. Empty confirmation texts mean "the built-in ones" (contracts `SIGNUP_DEFAULTS`),
-- so an improvement to those reaches every list that never changed them.
alter table mailing_lists
  add column double_opt_in boolean not null default true,
  add column form_key text not null default replace(gen_random_uuid()::text, '-', ''),
  -- Which fields the form asks for: {"first_name": "hidden"|"optional"|"required",
  -- "last_name": …, "custom": [{"key", "label", "required"}]} (contracts `ZSignupFields`).
  add column form_fields jsonb not null default '{"first_name": "optional", "last_name": "optional", "custom": []}'::jsonb,
  -- What a person agrees to by subscribing; kept with each consent record as it read then.
  add column consent_text text not null default '',
  add column confirmation_subject text not null default '',
  add column confirmation_html text not null default '';
create unique index mailing_lists_form_key on mailing_lists (form_key);

-- A member who signed up to a double opt-in list and has not opened the confirmation link
-- yet. Never subscribed meanwhile (the constraint), so every audience query, which reads
-- `subscribed`, leaves them out: they get the confirmation and nothing else.
-- `import_id`: the import that added the member, its consent record (who imported which
-- file, when, from where) without a row per member in a million-row import. No foreign
-- key, for the same reason list_members has few: a lookup per inserted row (the import
-- row goes only with its list, and the list's members with it).
alter table list_members
  add column unconfirmed boolean not null default false,
  add column import_id bigint,
  add constraint list_members_unconfirmed_not_subscribed check (not (subscribed and unconfirmed));
-- The hourly cleanup finds signups never confirmed through this (few rows: only those waiting).
create index list_members_unconfirmed_idx on list_members (id) where unconfirmed;

-- Where an import's file came from, for the consent records of the members it added.
alter table list_imports add column ip inet;

-- One row per act of consent: a form signup (hosted or embedded), an address added by
-- hand, synced from Mailgun or given through the API; an import's members point at their
-- import instead. A double opt-in signup carries its confirmation here: the token's hash
-- (the token itself only ever travels in the confirmation email), its expiry, when the
-- last confirmation email was queued (a second signup re-sends, not more often than the
-- cool-down) and when and from where it was confirmed.
create table member_consents (
  id bigint generated always as identity primary key,
  user_id bigint not null,
  list_id bigint not null references mailing_lists (id) on delete cascade,
  member_id bigint not null references list_members (id) on delete cascade,
  source text not null check (source in ('form', 'manual', 'import', 'provider', 'api')),
  -- Which form ('hosted', 'embedded') or what else the source names.
  source_detail text not null default '',
  ip inet,
  user_agent text,
  consent_text text not null default '',
  confirm_token_hash bytea,
  confirm_expires_at timestamptz,
  confirmation_sent_at timestamptz,
  confirmations_sent integer not null default 0,
  -- The engine's send that carried the last confirmation (the delivery module's row).
  confirmation_send_id bigint,
  confirmed_at timestamptz,
  confirmed_ip inet,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index member_consents_member_idx on member_consents (member_id, id);
create index member_consents_list_idx on member_consents (list_id);
create unique index member_consents_token_key on member_consents (confirm_token_hash)
  where confirm_token_hash is not null;

-- The confirmation email goes through the engine like every message: its own source.
alter table sends drop constraint if exists sends_source_check;
alter table sends add constraint sends_source_check check (source in ('lists', 'drip', 'spam-test', 'confirmation'));
