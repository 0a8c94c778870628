-- What a plan allows, and the credit ledger.

alter table plans
  add column allows_scheduling boolean not null default false,
  add column allows_accounts boolean not null default false,
  -- Added when a paid period starts (mon-balance-add) and removed when it ends.
  add column monthly_credits integer not null default 0 check (monthly_credits >= 0),
  -- Given once to a new user on this plan (trial).
  add column trial_credits integer not null default 0 check (trial_credits >= 0),
  add column stripe_price_id text;

-- Every change to a user's credits is a row; rows are never changed after insert. The
-- balance is derived from them and kept in credit_balances by the same transaction.
create table credit_entries (
  id bigint generated always as identity primary key,
  user_id bigint not null references users (id) on delete cascade,
  type text not null check (type in ('verify', 'spam-check', 'sale', 'trial', 'mon-balance-add', 'mon-balance-remove', 'one-time-credit')),
  quantity integer not null check (quantity <> 0),
  -- What the change was for: a verification list id, a Stripe invoice, an operator note.
  reference text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index credit_entries_user_created_idx on credit_entries (user_id, created_at desc, id desc);

create function credit_entries_refuse_update() returns trigger language plpgsql as $$
begin
  raise exception 'credit entries are never changed; add a new entry instead';
end $$;
create trigger credit_entries_no_update before update on credit_entries
  for each row execute function credit_entries_refuse_update();

-- The derived balance. The check is what makes an overdraft impossible: a charge is one
-- conditional UPDATE, serialised on this row, that fails rather than go below zero.
create table credit_balances (
  user_id bigint primary key references users (id) on delete cascade,
  balance integer not null default 0 check (balance >= 0),
  -- Spent on work (verify, spam-check), net of refunds.
  used integer not null default 0 check (used >= 0),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
