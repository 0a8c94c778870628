import { z } from 'zod';
import { defineJob } from '../../platform/queue';
import { giveUpVerification, runVerification } from './verification-run';

/**
 * Verifies a queued job's addresses to the end (again after a crash or a failure: it takes
 * up what is left). Once its retries are spent, the job is ended as failed and refunded.
 */
export const verifyJob = defineJob({
  name: 'verification.run',
  schema: z.object({ jobId: z.number().int().positive() }),
  // A worker that dies mid-job stops its heartbeat: the job is retried within a minute or
  // so, not after the hour its expiry allows a long job.
  queue: { retryLimit: 3, expireInSeconds: 3600, heartbeatSeconds: 30 },
  concurrency: 2,
  handler: ({ jobId }, platform) => runVerification(platform, jobId),
  onGivenUp: ({ jobId }, platform) => giveUpVerification(platform, jobId),
});
