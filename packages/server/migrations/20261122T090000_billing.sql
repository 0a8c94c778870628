-- Registration and Stripe billing: who referred a user, the Stripe customer and
-- subscription behind a paid plan, captcha solutions already used, webhook events
-- already handled.

alter table users
  add column referred_by text,
  add column stripe_customer_id text,
  add column stripe_subscription_id text,
  add column subscription_status text,
  add column current_period_end timestamptz;
create unique index users_stripe_customer_id_key on users (stripe_customer_id) where stripe_customer_id is not null;
create unique index users_stripe_subscription_id_key on users (stripe_subscription_id) where stripe_subscription_id is not null;

-- A captcha solution answers one registration. Rows outlive their challenge's expiry
-- briefly and are then removed by the hourly cleanup.
create table captcha_solutions (
  nonce text primary key,
  expires_at timestamptz not null,
  created_at timestamptz not null default now()
);
create index captcha_solutions_expires_at_idx on captcha_solutions (expires_at);

-- Each Stripe event id is handled once, in the transaction that applies it.
create table stripe_events (
  id text primary key,
  type text not null,
  created_at timestamptz not null default now()
);

-- A Stripe invoice, payment or subscription moves credits once, whichever of the
-- synchronous answer and its webhook arrives first. Operator notes stay free-form.
create unique index credit_entries_stripe_reference_key on credit_entries (type, reference)
  where reference ~ '^(in|pi|sub)_';
