import { defineScheduledJob } from '../../platform/queue';
import { deleteExpiredRateLimits } from '../../platform/rate-limit';

/**
 * Hourly (R30): the platform's stale rate-limit windows, and whatever each module registered
 * as its part (`cleanup` in its registration): expired sessions, spent reset and email-change links (auth),
 * used captchas past expiry (registration), Mailgun webhook tokens and applied provider
 * events past their retention (delivery-events).
 */
export const cleanupJob = defineScheduledJob({
  name: 'system.cleanup',
  cron: '17 * * * *',
  handler: async (platform) => {
    const [buckets, ...parts] = await Promise.all([
      deleteExpiredRateLimits(platform.db),
      ...platform.hooks.cleanups.map((cleanup) => cleanup(platform)),
    ]);
    platform.log.info(
      Object.assign({ rateLimitBuckets: Number(buckets.numDeletedRows) }, ...parts),
      'cleanup finished',
    );
  },
});

export const systemJobs = [cleanupJob];
