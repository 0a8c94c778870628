import { defineScheduledJob } from '../../platform/queue';
import { tickCampaigns } from './scheduler';

/**
 * The campaigns' scheduler tick: every minute, and at once when a campaign starts or resumes.
 * Safe to run twice at once: each account's hand-over takes an advisory lock, each recipient
 * row is claimed with SKIP LOCKED, and a message is unique per step and recipient.
 */
export const tickCampaignsJob = defineScheduledJob({
  name: 'campaigns.tick',
  cron: '* * * * *',
  queue: { retryLimit: 0, expireInSeconds: 300 },
  handler: tickCampaigns,
});
