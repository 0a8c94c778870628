-- Exactly once through a crash (R1, R28). A recipient's message is marked as handed over
-- (started_at) in a committed statement before its last byte can reach the provider; a
-- claim of a process that died goes back to pending only for recipients never handed
-- over, and the others become 'unknown' (the provider may have accepted them): never
-- resent on their own.
alter table send_recipients
  add column started_at timestamptz,
  -- The claiming process's presence key (an advisory lock it holds while alive): its
  -- claims are taken over as soon as the lock is gone, not after the lease.
  add column worker_key bigint;
