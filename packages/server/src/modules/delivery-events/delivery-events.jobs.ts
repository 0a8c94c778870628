import { defineScheduledJob } from '../../platform/queue';
import { applyPendingEvents } from './mailgun-events';

/**
 * Applies stored Mailgun events: queued at most twice a second per process while they
 * arrive, and every minute for whatever a crash left behind. The queue keeps the name it
 * was first queued under (`sending.`): a running installation's queued jobs carry it.
 */
export const applyEventsJob = defineScheduledJob({
  name: 'sending.apply-events',
  cron: '* * * * *',
  concurrency: 1,
  handler: applyPendingEvents,
});
