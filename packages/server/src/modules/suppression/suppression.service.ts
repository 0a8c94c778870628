import {
  safeCell,
  softBounceWindowStart,
  type TSuppression,
  temporarySuppressionOf,
  type ZSuppressionQuery,
} from '@sendwell/contracts';
import { stringify } from 'csv-stringify/sync';
import { sql } from 'kysely';
import type { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import { dateBounds } from '../../platform/date-filter';
import { type Executor, isUniqueViolation } from '../../platform/db';
import { fieldError, HttpError, notFound } from '../../platform/errors';
import { paginate, slicesAfter } from '../../platform/paging';
import { findAccountRow, openMailgunLists } from '../accounts/accounts.service';
import { timeZoneOf } from '../auth/auth.service';
import { findMemberships, onAnyListOf } from '../lists/lists.service';
import { unsubscribeFromAccountLists, unsubscribeFromAllLists } from '../lists/subscriptions.service';
import {
  allSuppressedEmails,
  deleteSuppression,
  findSuppression,
  findSuppressionEmails,
  insertSoftBounces,
  pruneSoftBounces,
  selectSuppressions,
  setSuppressionType,
  type TSuppressionEntry,
  type TSuppressionType,
  upsertSuppressions,
} from './suppression.repository';

export { notSuppressed, type TSuppressionEntry } from './suppression.repository';

/**
 * Every path that learns an address must not be sent to again calls this: a permanent
 * SMTP refusal, a Mailgun bounce or complaint, and later the suppression screen. Call it
 * in the transaction that records what happened.
 */
export const suppress = (executor: Executor, entries: TSuppressionEntry[]) => upsertSuppressions(executor, entries);

/** A soft bounce: the address may be fine; the message failed for good. */
export type TSoftBounce = Omit<TSuppressionEntry, 'type' | 'expiresAt'>;

/**
 * Records soft bounces (a full mailbox, a refusal of the message, a temporary failure given
 * up) and applies the temporary suppression rule (contracts `TEMPORARY_SUPPRESSION`): an
 * address with enough of them within the window is suppressed as `temporary` until it
 * lifts. Call it in the transaction that records the bounces.
 */
export const recordSoftBounces = async (executor: Executor, bounces: TSoftBounce[]) => {
  const now = new Date();
  const times = await insertSoftBounces(
    executor,
    bounces.map((bounce) => ({ userId: bounce.userId, email: bounce.email, sendId: bounce.sendId ?? null })),
    softBounceWindowStart(now),
  );
  const held = bounces.flatMap((bounce, index) => {
    const temporary = temporarySuppressionOf(times[index] ?? [], now);
    return temporary ? [{ ...bounce, type: 'temporary' as const, expiresAt: temporary.until }] : [];
  });
  await upsertSuppressions(executor, held);
  return held.length;
};

/** The suppression module's part of the hourly cleanup (R30): soft bounces past the rule's window, lifted suppressions. */
export const cleanUpSuppressions = async (platform: TPlatform) =>
  pruneSoftBounces(platform.db, softBounceWindowStart(new Date()));

/**
 * A recipient who unsubscribes (the link, the one-click POST, Mailgun's unsubscribe event)
 * or complains leaves every list of the account the email came from. The memberships are
 * the lists module's; this is the one place that decides what "everywhere" means.
 * `source` is what the member events say it came from.
 */
export const unsubscribeEverywhere = (
  platform: TPlatform,
  executor: Executor,
  recipient: { userId: number; accountId: number; email: string },
  source: 'unsubscribe-link' | 'complaint' | 'provider',
) =>
  // Each membership left is a `member.unsubscribed` webhook, queued in the caller's transaction.
  unsubscribeFromAccountLists(platform, executor, recipient, source);

// --- the suppression screen (spec §2 screen 11) ---

type TSuppressionRow = Awaited<ReturnType<ReturnType<typeof selectSuppressions>['executeTakeFirstOrThrow']>>;

const filtered = async (platform: TPlatform, userId: number, query: z.output<typeof ZSuppressionQuery>) => {
  let rows = selectSuppressions(platform.db, userId);
  if (query.type) rows = rows.where('type', '=', query.type);
  for (const bound of dateBounds('created_at', query, await timeZoneOf(platform.db, userId))) rows = rows.where(bound);
  // Hidden unless asked: unsubscribed entries, and addresses no longer subscribed anywhere.
  if (query.see_hidden !== '1') {
    rows = rows.where('type', '<>', 'unsubscribed').where(onAnyListOf(userId, sql`suppressions.email`));
  }
  return rows;
};

const withLists = async (platform: TPlatform, userId: number, rows: TSuppressionRow[]): Promise<TSuppression[]> => {
  const memberships = await findMemberships(
    platform.db,
    userId,
    rows.map((row) => row.email),
  );
  return rows.map((row) => {
    const lists = memberships.filter((membership) => membership.email === row.email.toLowerCase());
    return {
      ...row,
      refund: false,
      status: lists.length === 0 ? null : lists.some((list) => list.subscribed) ? 'On List' : 'Cleaned',
      created_at: row.created_at.toISOString(),
      updated_at: row.updated_at.toISOString(),
      expires_at: row.expires_at?.toISOString() ?? null,
      lists: lists.map((list) => ({
        mailing_list: list.address,
        id: list.list_id,
        account_id: list.account_id,
        subscribed: list.subscribed,
      })),
    };
  });
};

export const listSuppressions = async (
  platform: TPlatform,
  userId: number,
  query: z.output<typeof ZSuppressionQuery>,
) => {
  const page = await paginate(await filtered(platform, userId, query), query, {
    sortColumns: { created_at: 'created_at', email: sql`lower(email)`, type: 'type', quantity: 'quantity' },
    searchColumns: ['email', 'reason', 'message'],
    tieBreaker: 'id',
  });
  return { data: await withLists(platform, userId, page.data), meta: page.meta };
};

/**
 * The addresses leave every list of the user; they stay suppressed. Answers how many
 * memberships changed; each is a `member.unsubscribed` event (webhooks) in the same transaction.
 */
const unsubscribeSuppressed = (platform: TPlatform, userId: number, emails: string[]) =>
  platform.db.transaction().execute((trx) => unsubscribeFromAllLists(platform, trx, userId, emails, 'suppression'));

export const clearSuppressions = async (platform: TPlatform, userId: number, ids: number[]) =>
  unsubscribeSuppressed(platform, userId, await findSuppressionEmails(platform.db, userId, ids));

export const clearAllSuppressions = async (platform: TPlatform, userId: number) =>
  unsubscribeSuppressed(platform, userId, await allSuppressedEmails(platform.db, userId));

const MAILGUN_LIST = {
  bounce: 'bounces',
  'suppress-bounce': 'bounces',
  complained: 'complaints',
  unsubscribed: 'unsubscribes',
} as const;

/**
 * A reviewed bounce taken off the list: the next send goes to the address again. One that
 * Mailgun reported is taken off Mailgun's list for the account's domain first (else Mailgun
 * would drop the next message itself); if Mailgun cannot be reached, nothing changes here.
 */
export const removeSuppression = async (platform: TPlatform, userId: number, id: number) => {
  const row = await findSuppression(platform.db, userId, id);
  if (!row) throw notFound('This suppression does not exist.');
  const list = MAILGUN_LIST[row.type as keyof typeof MAILGUN_LIST];
  if (row.source === 'mailgun' && row.account_id && list) {
    const account = await findAccountRow(platform.db, userId, row.account_id);
    const mailgun = account ? openMailgunLists(platform, account) : null;
    if (mailgun && account?.domain) {
      await mailgun.removeSuppression(account.domain, list, row.email).catch((error: unknown) => {
        throw new HttpError(
          502,
          `Mailgun did not take the address off its list: ${(error as Error).message}`,
          'PROVIDER',
        );
      });
    }
  }
  await deleteSuppression(platform.db, userId, id);
};

/** Reclassifies a suppression after review (a 'bounce' that was a full mailbox: 'temporary'). */
export const reclassifySuppression = async (
  platform: TPlatform,
  userId: number,
  id: number,
  type: TSuppressionType,
) => {
  try {
    if (!(await setSuppressionType(platform.db, userId, id, type))) throw notFound('This suppression does not exist.');
  } catch (error) {
    if (isUniqueViolation(error)) throw fieldError('type', 'This address is already listed with that type.');
    throw error;
  }
};

const EXPORT_SLICE = 2_000;

/** The table as CSV, slice by slice, every cell through `safeCell` (R17). */
export async function* exportSuppressions(
  platform: TPlatform,
  userId: number,
  query: z.output<typeof ZSuppressionQuery>,
) {
  yield `\uFEFF${stringify([['Email', 'Type', 'Quantity', 'Status', 'Lists', 'Reason', 'Message', 'Created', 'Lifts']])}`;
  const rowsQuery = await filtered(platform, userId, query);
  const slices = slicesAfter((after) => rowsQuery.where('id', '>', after).orderBy('id').limit(EXPORT_SLICE).execute());
  for await (const rows of slices) {
    const search = query.search?.trim().toLowerCase();
    const kept = search ? rows.filter((row) => row.email.toLowerCase().includes(search)) : rows;
    yield stringify(
      (await withLists(platform, userId, kept)).map((row) =>
        [
          row.email,
          row.type,
          String(row.quantity),
          row.status ?? '',
          row.lists.map((list) => list.mailing_list).join(' '),
          row.reason ?? '',
          row.message ?? '',
          row.created_at,
          row.expires_at ?? '',
        ].map(safeCell),
      ),
    );
  }
}
