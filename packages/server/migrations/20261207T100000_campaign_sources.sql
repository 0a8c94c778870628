-- Where a drip campaign's recipients come from (issue 47, spec §2 recipients step): each
-- uploaded file, the manual table and each mailing list is a source. While the campaign is a
-- draft, its recipients are made again from its sources whenever one is added or removed, so a
-- second file adds to the first, a file can be taken away again, and an address in two files is
-- one recipient (the later row's name and fields) counted as a duplicate of the earlier.
create table campaign_sources (
  id bigint generated always as identity primary key,
  campaign_id bigint not null references campaigns (id) on delete cascade,
  user_id bigint not null,
  kind text not null check (kind in ('file', 'manual', 'list')),
  name text not null,
  -- A list source reads the list's members each time the recipients are made (no foreign key:
  -- the list is the lists module's; a deleted list gives no members).
  list_id bigint,
  -- What the last making of the recipients found: rows read (members on a list), addresses
  -- given first, addresses an earlier row gave, rows left out, and a list's unverified members.
  rows int not null default 0,
  added int not null default 0,
  duplicates int not null default 0,
  skipped int not null default 0,
  unverified int not null default 0,
  created_at timestamptz not null default now(),
  check ((kind = 'list') = (list_id is not null))
);
create index campaign_sources_campaign_idx on campaign_sources (campaign_id, id);

-- The rows a file or the manual table gave (addresses already read by the list import's
-- rules), kept while the campaign is a draft; a saved campaign's recipients are the truth.
create table campaign_source_rows (
  source_id bigint not null references campaign_sources (id) on delete cascade,
  position int not null,
  user_id bigint not null,
  email text not null,
  name text not null default '',
  variables jsonb not null default '{}'::jsonb,
  primary key (source_id, position)
);

-- The source that first gave the recipient's address.
alter table campaign_recipients add column source_id bigint references campaign_sources (id) on delete set null;

-- Spec §3's leadCatcher option, kept and answered.
alter table campaigns add column lead_catcher boolean not null default false;
