-- Images users upload for their emails (issue 46). Kept in PostgreSQL so every web process,
-- on one machine or many, serves every image: nothing is written to a local disk.
--
-- media_files holds each distinct image once, named by the SHA-256 of its bytes (the
-- public URL PUBLIC_URL/media/<hash>, cacheable for ever since the name changes with the
-- bytes); media is each user's library entry, which the quota counts.
create table media_files (
  hash text primary key check (hash ~ '^[0-9a-f]{64}$'),
  content_type text not null check (content_type in ('image/png', 'image/jpeg', 'image/gif', 'image/webp')),
  bytes bytea not null,
  size integer not null check (size > 0),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
-- Images are compressed already: storing them out of line without compressing again spares
-- a pointless pglz pass on every upload.
alter table media_files alter column bytes set storage external;

create table media (
  id bigint generated always as identity primary key,
  user_id bigint not null references users (id) on delete cascade,
  hash text not null references media_files (hash),
  name text not null,
  width integer not null,
  height integer not null,
  size integer not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- The same picture uploaded twice is one entry, counted once.
  unique (user_id, hash)
);
create index media_user_idx on media (user_id, id desc);
-- Whether any library still holds a file (serving and the cleanup ask).
create index media_hash_idx on media (hash);
