-- The spec's default free plan has id 2; registration (next issue) relies on it.
insert into plans (id, name, plan_name, price_cents, is_free)
  overriding system value values (2, 'Free', 'free', 0, true);
-- New plans get ids after the seeded one.
select setval(pg_get_serial_sequence('plans', 'id'), 2);
