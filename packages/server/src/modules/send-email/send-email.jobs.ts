import { z } from 'zod';
import { defineJob } from '../../platform/queue';
import { startSendAfterVerification } from './send-after-verification.service';

/**
 * Starts a send that waited for its lists' verification (the verify-lists upsell), queued in
 * the transaction that ends one of them; it goes out once the last has ended. Safe to run twice.
 */
export const startAfterVerificationJob = defineJob({
  name: 'send-email.start-after-verification',
  schema: z.object({ id: z.number().int().positive() }),
  queue: { retryLimit: 3 },
  handler: ({ id }, platform) => startSendAfterVerification(platform, id),
});
