-- A person's data erased on request (issue 48 §4, R46): nothing about the address stays
-- but this, a salted hash under the user who erased it, so the address stays unmailed
-- (`notSuppressed` reads it beside the suppressions). The hash is defined once, here, and
-- computed by PostgreSQL on both sides (erase and every audience query), so JavaScript
-- and SQL cannot disagree on it. Salted with the user's id: the same address erased by two
-- users gives two unrelated hashes.
create function erased_address_hash(user_id bigint, email text) returns bytea
  language sql immutable strict parallel safe
  as $$ select sha256(convert_to(user_id::text || ':' || lower(email), 'UTF8')) $$;

create table erased_addresses (
  user_id bigint not null references users (id) on delete cascade,
  email_hash bytea not null,
  created_at timestamptz not null default now(),
  primary key (user_id, email_hash)
);

-- Events that name no recipient (a provider's word about an address Sendwell sent nothing
-- to) are found by their address only when one is erased. Partial: an event of a recipient
-- (nearly all) skips it, so the engine's settles and the intake pay nothing for it.
create index delivery_events_unattached_email_idx on delivery_events (user_id, lower(email))
  where recipient_id is null;
