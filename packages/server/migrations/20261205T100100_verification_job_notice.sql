-- What a job's user must know about its verdicts beyond the counts (R48): the resolver was
-- broken, so addresses that depend on DNS are unknown and refunded. Shown with the job and
-- in its notification.
alter table verification_jobs add column notice text;
