-- Whether the DNS resolver answers for names that must exist (R48): email verification and
-- the pre-send check ask a few (DNS_CANARY_NAMES) before they believe "no such domain", and
-- write here what they found, one row per asker, for the operator's System page. A resolver
-- that answers "no such domain" for everything would otherwise mark every address invalid
-- and every domain without SPF or DMARC.
create table resolver_status (
  source text primary key check (source in ('verification', 'pre-send')),
  -- The servers asked, as configured (empty: the system's).
  servers text not null default '',
  broken_since timestamptz,
  last_ok_at timestamptz,
  -- What failed the last time it was broken: the names not found and how.
  detail text,
  updated_at timestamptz not null default now()
);
