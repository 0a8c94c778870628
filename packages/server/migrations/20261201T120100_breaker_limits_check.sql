-- The breaker lines' ranges as constraints, beside the settings schema (`BREAKER_LIMITS` in
-- contracts' sending/circuit-breaker.ts): hard bounces 0.5–50 %, complaints 0.01–5 %. They
-- replace the (0, 100] checks of 20261127T100000_circuit_breaker.sql; the rows were brought
-- into range by 20261201T120000.
alter table sending_accounts
  drop constraint sending_accounts_breaker_bounce_percent_check,
  drop constraint sending_accounts_breaker_complaint_percent_check,
  add constraint sending_accounts_breaker_bounce_percent_range
    check (breaker_bounce_percent between 0.5 and 50),
  add constraint sending_accounts_breaker_complaint_percent_range
    check (breaker_complaint_percent between 0.01 and 5);
