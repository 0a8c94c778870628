-- What capped accounts counted on their user's current day moves into the rolling window,
-- counted from now for the next 24 hours: the old count knew the day but not the hour, so
-- only this never lets out more than either rule would (a count older than it looks frees
-- later than it might, never earlier).
insert into account_cap_reservations (account_id, counted_at, sent)
select c.account_id, now(), c.sent
  from account_daily_counts c
  join sending_accounts a on a.id = c.account_id
  join users u on u.id = a.user_id
 where c.sent > 0 and c.day = (now() at time zone u.time_zone)::date;
