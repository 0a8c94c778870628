-- Sensible starting plans; operators change them with `npm run admin -- edit-plan`.
update plans set trial_credits = 300 where id = 2;

insert into plans (name, plan_name, price_cents, is_free, allows_scheduling, allows_accounts, monthly_credits, trial_credits)
values
  ('Pro', 'sendwell-pro', 2900, false, true, true, 5000, 300),
  ('Business', 'sendwell-business', 9900, false, true, true, 25000, 300);
