-- The circuit breaker's lines come into the ranges the settings now take (issue 43 item 5):
-- hard bounces 0.5–50 %, complaints 0.01–5 %. A line of 100 % never tripped, so a user who
-- set it had no breaker at all; 50 % and 5 % are the widest lines the form offers now. A
-- line below the range (1e-9 %) tripped on any list's first bounce; it becomes the lowest.
update sending_accounts
   set breaker_bounce_percent = least(greatest(breaker_bounce_percent, 0.5), 50),
       breaker_complaint_percent = least(greatest(breaker_complaint_percent, 0.01), 5),
       updated_at = now()
 where breaker_bounce_percent not between 0.5 and 50
    or breaker_complaint_percent not between 0.01 and 5;
