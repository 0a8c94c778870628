import { z } from 'zod';
import { publicUrl } from '../../platform/public-url';
import { defineJob } from '../../platform/queue';
import { mailCampaignBreaker } from './campaign-breaker.service';

/** Mails the user that the circuit breaker stopped a campaign (queued with the stop). */
export const campaignBreakerEmailJob = defineJob({
  name: 'campaigns.breaker-email',
  schema: z.object({ campaignId: z.number().int().positive() }),
  queue: { retryLimit: 5 },
  handler: ({ campaignId }, platform) => mailCampaignBreaker(platform, campaignId, publicUrl(platform)),
});
