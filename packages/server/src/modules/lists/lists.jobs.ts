import { z } from 'zod';
import { defineJob } from '../../platform/queue';
import { importListsFromProvider } from './lists.service';

/**
 * Brings a Mailgun account's lists in after the account was saved with "import the
 * domain's mailing lists". Matching by address makes a second run harmless.
 */
export const syncProviderListsJob = defineJob({
  name: 'lists.sync-provider',
  schema: z.object({ userId: z.number().int().positive(), accountId: z.number().int().positive() }),
  concurrency: 1,
  queue: { retryLimit: 3, expireInSeconds: 1800 },
  handler: async ({ userId, accountId }, platform) => {
    await importListsFromProvider(platform, userId, accountId);
  },
});
