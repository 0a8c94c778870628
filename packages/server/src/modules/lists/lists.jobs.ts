import { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import { defineJob } from '../../platform/queue';
import type { TAccountSaved } from '../module';
import { importListsFromProvider } from './lists.service';
import { findListsToIndex, indexMemberSearch } from './member-search';

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

/**
 * A Mailgun account saved with "import the domain's mailing lists" (the accounts module's
 * `accountSaved` hook): its lists come in in the background.
 */
export const bringInProviderLists: TAccountSaved = async (platform, { userId, accountId, provider, importLists }) => {
  if (provider !== 'mailgun' || !importLists) return undefined;
  await platform.queue.enqueue(syncProviderListsJob, { userId, accountId });
  return { message: 'Its Mailgun mailing lists are being imported.' };
};

/**
 * Indexes a list's new members for search, after they are committed (an import's end, a
 * member added): the import never waits for the index. One run per list at a time.
 */
export const indexListSearchJob = defineJob({
  name: 'lists.index-search',
  schema: z.object({ listId: z.number().int().positive() }),
  queue: { retryLimit: 5, expireInSeconds: 1800 },
  handler: async ({ listId }, platform) => {
    await indexMemberSearch(platform.db, listId);
  },
});

/**
 * Queues the search indexing of a list (its members committed), one run per list at a time.
 * `delayMs`: a burst of calls (the bulk API's) is indexed after it, by the first run that
 * comes due, not alongside each call; members are found by search meanwhile all the same.
 */
export const queueSearchIndexing = (platform: TPlatform, listId: number, { delayMs = 0 }: { delayMs?: number } = {}) =>
  platform.queue.enqueue(
    indexListSearchJob,
    { listId },
    { singletonKey: `index-search-${listId}`, ...(delayMs > 0 ? { startAfter: new Date(Date.now() + delayMs) } : {}) },
  );

/** At a worker's start: lists with members left unindexed (an upgrade, a lost job). */
export const indexLeftBehind = (platform: TPlatform) => {
  findListsToIndex(platform.db)
    .then((listIds) => Promise.all(listIds.map((listId) => queueSearchIndexing(platform, listId))))
    .catch((error: unknown) => platform.log.error({ err: error }, 'could not queue member search indexing'));
  return () => {};
};
