-- API keys (issue 48 §2, R45): per user, named, scoped, revocable at once. Only the key's
-- SHA-256 is stored (a key is 240 random bits, so a plain hash is as good as a slow one and
-- costs one index probe per request); the key itself is shown once, when it is made.
create table api_keys (
  id bigint generated always as identity primary key,
  user_id bigint not null references users (id) on delete cascade,
  name text not null check (length(name) between 1 and 100),
  key_hash bytea not null unique,
  -- The key's first characters, for a person to tell their keys apart.
  key_prefix text not null,
  scopes text[] not null
    check (cardinality(scopes) > 0 and scopes <@ array['lists:read', 'lists:write', 'send', 'reports:read']),
  last_used_at timestamptz,
  -- A revoked key stays listed (when it was made, last used and revoked) and opens nothing.
  revoked_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index api_keys_user_id_idx on api_keys (user_id, created_at desc);
