-- Whether the verification probe reaches receiving servers from this installation: when
-- jobs find no server of any domain on the probe's port (outbound port 25 blocked, as on
-- most cloud machines), the operator's System page says so. One row.
create table verification_probe_status (
  id int primary key default 1 check (id = 1),
  blocked_since timestamptz,
  last_reached_at timestamptz,
  unreachable_domains int not null default 0,
  detail text,
  updated_at timestamptz not null default now()
);
