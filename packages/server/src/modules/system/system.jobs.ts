import { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import { defineJob } from '../../platform/queue';
import { deleteExpiredRateLimits } from '../../platform/rate-limit';
import { deleteExpiredSessions, deleteOldPasswordResets } from '../auth/auth.service';
import { deleteExpiredSolutions } from '../registration/captcha.service';
import { pruneWebhookRecords } from '../sending/sending.service';

/**
 * Hourly: drops expired sessions, spent reset links, stale rate-limit windows, used captchas
 * past expiry, and Mailgun webhook tokens and applied provider events past their retention (R30).
 */
export const cleanupJob = defineJob({
  name: 'system.cleanup',
  schema: z.object({}).passthrough(),
  cron: '17 * * * *',
  handler: async (_data, platform: TPlatform) => {
    const [sessions, resets, buckets, captchas, webhooks] = await Promise.all([
      deleteExpiredSessions(platform.db),
      deleteOldPasswordResets(platform.db),
      deleteExpiredRateLimits(platform.db),
      deleteExpiredSolutions(platform.db),
      pruneWebhookRecords(platform),
    ]);
    platform.log.info(
      {
        sessions: Number(sessions.numDeletedRows),
        passwordResets: Number(resets.numDeletedRows),
        rateLimitBuckets: Number(buckets.numDeletedRows),
        captchaSolutions: Number(captchas.numDeletedRows),
        ...webhooks,
      },
      'cleanup finished',
    );
  },
});

export const systemJobs = [cleanupJob];
