-- A send the circuit breaker paused and its user resumed is judged again on the messages
-- after the resume (issue 45 §3): when it was resumed; null before any resume.
alter table sends add column breaker_judged_from timestamptz;
