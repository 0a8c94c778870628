import { z } from 'zod';
import { publicUrl } from '../../platform/public-url';
import { defineJob } from '../../platform/queue';
import { mailBreakerTripped } from './circuit-breaker.service';

/** Mails the user that the circuit breaker paused a send (queued with the pause, in its transaction). */
export const breakerEmailJob = defineJob({
  name: 'sending.breaker-email',
  schema: z.object({ sendId: z.number().int().positive() }),
  queue: { retryLimit: 5 },
  handler: ({ sendId }, platform) => mailBreakerTripped(platform, sendId, publicUrl(platform)),
});
