import { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import { defineJob } from '../../platform/queue';
import { deleteExpiredRateLimits } from '../../platform/rate-limit';
import { deleteExpiredSessions, deleteOldPasswordResets } from '../auth/auth.repository';
import { deleteExpiredSolutions } from '../registration/captcha.service';

/** Hourly: drops expired sessions, spent reset links, stale rate-limit windows and used captchas past expiry. */
export const cleanupJob = defineJob({
  name: 'system.cleanup',
  schema: z.object({}).passthrough(),
  cron: '17 * * * *',
  handler: async (_data, platform: TPlatform) => {
    const [sessions, resets, buckets, captchas] = await Promise.all([
      deleteExpiredSessions(platform.db),
      deleteOldPasswordResets(platform.db),
      deleteExpiredRateLimits(platform.db),
      deleteExpiredSolutions(platform.db),
    ]);
    platform.log.info(
      {
        sessions: Number(sessions.numDeletedRows),
        passwordResets: Number(resets.numDeletedRows),
        rateLimitBuckets: Number(buckets.numDeletedRows),
        captchaSolutions: Number(captchas.numDeletedRows),
      },
      'cleanup finished',
    );
  },
});

export const systemJobs = [cleanupJob];
