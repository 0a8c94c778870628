import { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import { defineJob } from '../../platform/queue';
import { deleteExpiredRateLimits } from '../../platform/rate-limit';

/**
 * Hourly (R30): the platform's stale rate-limit windows, and whatever each module registered
 * as its part (`cleanup` in its registration): expired sessions, spent reset and email-change links (auth),
 * used captchas past expiry (registration), Mailgun webhook tokens and applied provider
 * events past their retention (delivery-events).
 */
export const cleanupJob = defineJob({
  name: 'system.cleanup',
  schema: z.object({}).passthrough(),
  cron: '17 * * * *',
  handler: async (_data, platform: TPlatform) => {
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
