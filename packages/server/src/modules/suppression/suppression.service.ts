import type { Executor } from '../../platform/db';
import { unsubscribeFromAccountLists } from '../lists/lists.service';
import { type TSuppressionEntry, upsertSuppressions } from './suppression.repository';

export { notSuppressed, type TSuppressionEntry } from './suppression.repository';

/**
 * Every path that learns an address must not be sent to again calls this: a permanent
 * SMTP refusal, a Mailgun bounce or complaint, and later the suppression screen. Call it
 * in the transaction that records what happened.
 */
export const suppress = (executor: Executor, entries: TSuppressionEntry[]) => upsertSuppressions(executor, entries);

/**
 * A recipient who unsubscribes (the link, the one-click POST, Mailgun's unsubscribe event)
 * or complains leaves every list of the account the email came from. The memberships are
 * the lists module's; this is the one place that decides what "everywhere" means.
 */
export const unsubscribeEverywhere = (
  executor: Executor,
  recipient: { userId: number; accountId: number; email: string },
) => unsubscribeFromAccountLists(executor, recipient);
