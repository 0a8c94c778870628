import { z } from 'zod';
import { defineJob, defineScheduledJob } from '../../platform/queue';
import { deliverDue, queueDueDeliveries } from './webhooks.service';

/**
 * Delivers an endpoint's due events (`deliverDue`). Queued in the transaction that made the
 * deliveries; one waiting and one running per endpoint at most (`stately`, keyed by the
 * endpoint), so a burst of events is one job, not one each. Safe twice: deliveries are
 * taken under leases.
 */
export const deliverWebhooksJob = defineJob({
  name: 'webhooks.deliver',
  schema: z.object({ endpointId: z.number().int().positive() }),
  concurrency: 4,
  queue: { policy: 'stately', retryLimit: 3, expireInSeconds: 600 },
  handler: async ({ endpointId }, platform) => {
    await deliverDue(platform, endpointId);
  },
});

/** Every minute: endpoints with retries come due (or whose job was lost) get their job. */
export const sweepWebhooksJob = defineScheduledJob({
  name: 'webhooks.sweep',
  cron: '* * * * *',
  handler: queueDueDeliveries,
});
