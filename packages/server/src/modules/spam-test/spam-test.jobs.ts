import { z } from 'zod';
import { defineJob } from '../../platform/queue';
import { expireSpamTest } from './spam-test.service';

/**
 * Runs at a test's deadline (SPAM_TEST_TIMEOUT_MINUTES after it was sent): a test whose
 * message never came is failed and its credits given back; one that came but was not
 * scored (the worker stopped in between) is scored now.
 */
export const expireSpamTestJob = defineJob({
  name: 'spam-test.expire',
  schema: z.object({ testId: z.number().int().positive() }),
  queue: { retryLimit: 5, retryDelay: 30 },
  handler: ({ testId }, platform) => expireSpamTest(platform, testId),
});
