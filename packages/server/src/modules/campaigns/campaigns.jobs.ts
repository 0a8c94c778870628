import { z } from 'zod';
import { defineJob } from '../../platform/queue';
import { tickCampaigns } from './scheduler';

/**
 * The drip scheduler's tick: every minute, and at once when a campaign starts or resumes.
 * Safe to run twice at once: each account's hand-over takes an advisory lock, each recipient
 * row is claimed with SKIP LOCKED, and a message is unique per step and recipient.
 */
export const tickCampaignsJob = defineJob({
  name: 'campaigns.tick',
  schema: z.object({}),
  cron: '* * * * *',
  queue: { retryLimit: 0, expireInSeconds: 300 },
  handler: async (_data, platform) => {
    await tickCampaigns(platform);
  },
});
