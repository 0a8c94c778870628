import {
  distinctEntries,
  EMAIL_PROBLEMS,
  findEmailHeader,
  firstRowProblem,
  readColumnEntries,
  readPastedEntries,
  safeCell,
  type TDistinctEntries,
  type TVerifyJob,
  type TVerifyStoreResult,
  VERIFY_MAX_ADDRESSES,
  VERIFY_MESSAGES,
  VERIFY_SKIPPED_SHOWN,
  type ZVerifyItemQuery,
} from '@sendwell/contracts';
import { stringify } from 'csv-stringify/sync';
import type { RawBuilder, Selectable } from 'kysely';
import { sql } from 'kysely';
import type { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import type { Executor } from '../../platform/db';
import type { VerificationJobsTable } from '../../platform/db-schema';
import { fieldError, HttpError, notFound, ValidationError } from '../../platform/errors';
import { paginate } from '../../platform/paging';
import { isAddress } from '../../platform/queries';
import { chargeCredits, getBalance, InsufficientCreditsError } from '../credits/credits.service';
import { findUnverifiedEmails, requireList, setVerifyStatus } from '../lists/lists.service';
import { notifyUser } from '../notifications/notifications.service';
import { verifyJob } from './verification.jobs';

/**
 * Email verification (issue 13): the tool's flow of spec §4 — store (the addresses, their
 * duplicates and what was already checked, as a draft job), last check (credits charged for
 * the addresses to check, atomically, R21; the job queued), then the results; the job's run
 * (addresses verified in slices by the engine, progress published live, the unknown
 * verdicts' credits refunded at the end) is `verification-run.ts`. Tables
 * `verification_jobs`, `verification_items`, `verified_addresses`.
 */

const toJob = (row: Selectable<VerificationJobsTable>): TVerifyJob => ({
  id: row.id,
  status: row.status,
  total: row.total,
  checked: row.checked,
  valid: row.valid,
  invalid: row.invalid,
  unknown: row.unknown,
  duplicates: row.duplicates,
  already_checked: row.already_checked,
  credits_charged: row.credits_charged,
  credits_refunded: row.credits_refunded,
  notice: row.notice,
  created_at: row.created_at.toISOString(),
  finished_at: row.finished_at?.toISOString() ?? null,
});

/** What a paste or an upload holds, as the tool counts it (contracts' entry rules). */
type TStoreInput = TDistinctEntries & {
  /** Rows of a file with an empty email cell: reported, not part of the job. */
  emptyRows: number[];
  /** What a skipped entry's number counts: a paste's lines or a file's rows. */
  unit: 'line' | 'row';
};

/** The reason an entry that is not an address is invalid, as the results show it. */
const notAnAddress = (problem: string, unit: TStoreInput['unit'], line: number) =>
  `Not an email address: ${problem} (${unit} ${line}).`;

/**
 * The user's earlier results among these addresses (what "already checked" means).
 * `addresses` are in their stored form; the table compares without case.
 */
const findCheckedBefore = (db: Executor, userId: number, addresses: string[]) =>
  addresses.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('verified_addresses')
        .select(['email', 'verdict', 'checked_at'])
        .where('user_id', '=', userId)
        .where(sql<boolean>`lower(email) = any(${addresses.map((address) => address.toLowerCase())}::text[])`)
        .execute();

/** Whose draft it is: the tool's (none of these), or a list's, perhaps for a send waiting for it. */
type TDraftOf = { listId?: number | null; max?: number; storageId?: string | null };

/**
 * Creates the draft job of spec §4's first step and answers the confirmation modal's
 * figures. Each address is one item (its spellings de-duplicated already); each entry that
 * is not an address is an item with its `invalid` verdict and reason from the start, so it
 * is reported and never charged.
 */
const storeDraft = async (
  platform: TPlatform,
  userId: number,
  input: TStoreInput,
  { listId = null, max = VERIFY_MAX_ADDRESSES, storageId = null }: TDraftOf = {},
): Promise<TVerifyStoreResult> => {
  const { addresses, invalid, duplicates, emptyRows, unit } = input;
  const skipped = [
    ...invalid.map((entry) => ({ line: entry.line, text: entry.text, reason: entry.problem })),
    ...emptyRows.map((row) => ({ line: row, text: '', reason: EMAIL_PROBLEMS.missing })),
  ].sort((a, b) => a.line - b.line);
  if (addresses.length === 0) {
    const first = skipped[0];
    throw fieldError(
      'emails',
      first
        ? `${VERIFY_MESSAGES.none} ${unit === 'row' ? 'Row' : 'Line'} ${first.line}: ${first.reason}.`
        : VERIFY_MESSAGES.none,
    );
  }
  const total = addresses.length + invalid.length;
  if (total > max) {
    throw fieldError(
      'emails',
      max === VERIFY_MAX_ADDRESSES
        ? VERIFY_MESSAGES.tooMany
        : `At most ${max.toLocaleString('en-US')} members can be verified at once.`,
    );
  }
  return platform.db.transaction().execute(async (trx) => {
    const cached = await findCheckedBefore(trx, userId, addresses);
    const job = await trx
      .insertInto('verification_jobs')
      .values({
        user_id: userId,
        list_id: listId,
        total,
        duplicates,
        already_checked: cached.length,
        storage_id: storageId,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await sql`
      insert into verification_items (job_id, email)
      select ${job.id}, email from unnest(${addresses}::text[]) as t(email)`.execute(trx);
    if (invalid.length > 0) {
      await sql`
        insert into verification_items (job_id, email, verdict, reason, checked_at)
        select ${job.id}, t.text, 'invalid', t.reason, now()
          from unnest(${invalid.map((entry) => entry.text)}::text[],
                      ${invalid.map((entry) => notAnAddress(entry.problem, unit, entry.line))}::text[]) as t(text, reason)`.execute(
        trx,
      );
    }
    return {
      status: true,
      data: {
        alreadyCheckedCount: cached.length,
        totalDuplicate: duplicates,
        alreadyChecked: cached.slice(0, 100).map((row) => ({ ...row, checked_at: row.checked_at.toISOString() })),
        creditToBeUsed: addresses.length - cached.length,
        listId: job.id,
        listStatus: 'draft',
        total,
        addresses: addresses.length,
        invalid: invalid.length,
        emptyRows: emptyRows.length,
        skipped: skipped.slice(0, VERIFY_SKIPPED_SHOWN),
      },
    };
  });
};

/**
 * A paste: each line one entry, several only where commas or semicolons stand between
 * complete addresses (contracts' `readPastedEntries`, which the paste box counts with too).
 */
export const storeText = (platform: TPlatform, userId: number, text: string) =>
  storeDraft(platform, userId, { ...distinctEntries(readPastedEntries(text)), emptyRows: [], unit: 'line' });

/**
 * A parsed CSV: one entry per data row, from the column the user chose for the email (spec
 * §5 "select your email field"); addresses in other columns are not taken, and rows whose
 * email cell is empty are reported by number. Without a column named, the import's
 * auto-mapping: the header `email`, or the only column of the file.
 */
export const storeFile = (
  platform: TPlatform,
  userId: number,
  rows: string[][],
  mapping: { emailColumn?: number; hasHeaders?: boolean } = {},
) => {
  const header = findEmailHeader(rows[0] ?? []);
  const isOneColumn = rows.every((row) => row.length <= 1);
  const emailColumn = mapping.emailColumn ?? header ?? (isOneColumn ? 0 : null);
  if (rows.length === 0 || emailColumn === null) throw fieldError('csvFile', VERIFY_MESSAGES.selectEmail);
  const hasHeaders = mapping.hasHeaders ?? (header !== null && header === emailColumn);
  const firstRowIssue = firstRowProblem(rows, { hasHeaders, emailColumn });
  if (firstRowIssue) throw fieldError('csvFile', firstRowIssue);
  const { entries, emptyRows } = readColumnEntries(rows, { hasHeaders, emailColumn });
  return storeDraft(platform, userId, { ...distinctEntries(entries), emptyRows, unit: 'row' });
};

/**
 * Spec §7 `verify-bulk-emails-credit-check`: what verifying these entries would cost, read
 * with the paste's rules, without storing anything.
 */
export const bulkCreditCheck = async (platform: TPlatform, userId: number, emails: string | string[]) => {
  const { addresses, invalid, duplicates } = distinctEntries(
    readPastedEntries(Array.isArray(emails) ? emails.join('\n') : emails),
  );
  const controlled = (await findCheckedBefore(platform.db, userId, addresses)).length;
  return {
    status: true,
    count: addresses.length - controlled,
    total: addresses.length,
    controlled,
    duplicate: duplicates,
    invalid: invalid.length,
  };
};

/**
 * Spec §4 last check: charges the credits (one per address to check; all of them when
 * checking again) in the transaction that queues the job, so two requests cannot spend
 * the same credits (R21), and fills what was checked before from the user's results.
 */
export const startVerification = async (
  platform: TPlatform,
  userId: number,
  { listId, creditsToBeUsed, checkAgain = false }: { listId: number; creditsToBeUsed: number; checkAgain?: boolean },
) => {
  await platform.db.transaction().execute(async (trx) => {
    const job = await trx
      .selectFrom('verification_jobs')
      .selectAll()
      .where('user_id', '=', userId)
      .where('id', '=', listId)
      .forUpdate()
      .executeTakeFirst();
    if (!job) throw notFound('This verification does not exist.');
    if (job.status !== 'draft') throw new HttpError(409, 'This verification has already started.', 'VERIFY_STATE');
    if (!checkAgain) {
      await sql`
        update verification_items i
           set verdict = v.verdict, reason = v.reason, flags = v.flags, suggestion = v.suggestion,
               from_cache = true, checked_at = v.checked_at
          from verified_addresses v
         where i.job_id = ${job.id} and i.verdict is null and v.user_id = ${userId}
           and lower(v.email) = lower(i.email)`.execute(trx);
    }
    const counts = (
      await sql<{ todo: number; valid: number; invalid: number; unknown: number }>`
        select count(*) filter (where verdict is null)::int as todo,
               count(*) filter (where verdict = 'valid')::int as valid,
               count(*) filter (where verdict = 'invalid')::int as invalid,
               count(*) filter (where verdict = 'unknown')::int as unknown
          from verification_items where job_id = ${job.id}`.execute(trx)
    ).rows[0]!;
    if (creditsToBeUsed !== counts.todo) {
      throw new HttpError(
        409,
        `This verification costs ${counts.todo} credits now; please confirm again.`,
        'VERIFY_COST',
      );
    }
    // A single-company install (`BILLING=off`) has no credits: verification costs nothing.
    const charged = platform.config.isBillingOn ? counts.todo : 0;
    if (charged > 0) {
      await chargeCredits(trx, { userId, type: 'verify', amount: charged, reference: `verification ${job.id}` });
    }
    await trx
      .updateTable('verification_jobs')
      .set({
        status: 'queued',
        recheck: checkAgain,
        credits_charged: charged,
        checked: job.total - counts.todo,
        valid: counts.valid,
        invalid: counts.invalid,
        unknown: counts.unknown,
        updated_at: new Date(),
      })
      .where('id', '=', job.id)
      .execute();
    await platform.queue.enqueue(verifyJob, { jobId: job.id }, { executor: trx });
  });
};

/**
 * Whether the user's own verification found this address invalid (the verification tool, a
 * list's, or the drip wizard's offer): a drip campaign stops such a recipient rather than
 * sending to it.
 */
export const isVerifiedInvalid = async (executor: Executor, userId: number, email: string) =>
  (
    await executor
      .selectFrom('verified_addresses')
      .select('verdict')
      .where('user_id', '=', userId)
      .where(isAddress(email))
      .executeTakeFirst()
  )?.verdict === 'invalid';

/**
 * The user's latest verdict of an address ('valid', 'invalid', 'unknown' or null), as a SQL
 * value for set-based queries of other modules (the pre-send check's audience facts): they
 * hold no SQL of this table of their own.
 */
export const verdictOf = (userId: number, address: RawBuilder<unknown>) =>
  sql<string | null>`(select v.verdict from verified_addresses v
                       where v.user_id = ${userId} and lower(v.email) = lower(${address}))`;

/** For the operator's System page: whether the probe reaches receiving servers from here. */
export const probeStatus = async (db: Executor) => {
  const row = await db.selectFrom('verification_probe_status').selectAll().where('id', '=', 1).executeTakeFirst();
  return {
    blockedSince: row?.blocked_since?.toISOString() ?? null,
    lastReachedAt: row?.last_reached_at?.toISOString() ?? null,
    unreachableDomains: row?.unreachable_domains ?? 0,
    detail: row?.detail ?? null,
  };
};

const requireJob = async (platform: TPlatform, userId: number, id: number) => {
  const row = await platform.db
    .selectFrom('verification_jobs')
    .selectAll()
    .where('user_id', '=', userId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw notFound('This verification does not exist.');
  return row;
};

export const getJob = async (platform: TPlatform, userId: number, id: number) =>
  toJob(await requireJob(platform, userId, id));

export const listJobs = async (platform: TPlatform, userId: number, query: Parameters<typeof paginate>[1]) => {
  const page = await paginate(
    platform.db
      .selectFrom('verification_jobs')
      .selectAll()
      .where('user_id', '=', userId)
      .where('status', '<>', 'draft'),
    query,
    { sortColumns: { created_at: 'created_at' }, searchColumns: [], tieBreaker: 'id' },
  );
  return { data: page.data.map(toJob), meta: page.meta };
};

/** The items of a job of the user's (another user's job: 404), of one verdict when it is given. */
const itemsOfJob = async (platform: TPlatform, userId: number, jobId: number, verdict: string | undefined) => {
  await requireJob(platform, userId, jobId);
  let rows = platform.db
    .selectFrom('verification_items')
    .select(['id', 'email', 'verdict', 'reason', 'flags', 'suggestion', 'from_cache', 'checked_at'])
    .where('job_id', '=', jobId);
  if (verdict) rows = rows.where('verdict', '=', verdict as 'valid');
  return rows;
};

export const listItems = async (
  platform: TPlatform,
  userId: number,
  id: number,
  query: z.output<typeof ZVerifyItemQuery>,
) => {
  const page = await paginate(await itemsOfJob(platform, userId, id, query.verdict), query, {
    sortColumns: { email: sql`lower(email)`, verdict: 'verdict' },
    searchColumns: ['email'],
    tieBreaker: 'id',
  });
  return {
    data: page.data.map((row) => ({ ...row, checked_at: row.checked_at?.toISOString() ?? null })),
    meta: page.meta,
  };
};

/** A job's results as CSV, every cell through `safeCell` (R17). */
export const exportItems = async (
  platform: TPlatform,
  userId: number,
  id: number,
  query: z.output<typeof ZVerifyItemQuery>,
) => {
  const rows = await (await itemsOfJob(platform, userId, id, query.verdict)).orderBy('id').execute();
  const flagNames = (flags: Record<string, boolean>) =>
    Object.entries(flags)
      .filter(([, isSet]) => isSet)
      .map(([name]) => name)
      .join(' ');
  return `\uFEFF${stringify(
    [
      ['Email', 'Verdict', 'Reason', 'Flags', 'Suggestion', 'Checked'],
      ...rows.map((row) => [
        row.email,
        row.verdict ?? 'pending',
        row.reason ?? '',
        flagNames(row.flags),
        row.suggestion ?? '',
        row.checked_at?.toISOString() ?? '',
      ]),
    ].map((row) => row.map(safeCell)),
  )}`;
};

// --- "Verify Your List" (spec §4 mailing list verification) ---

/** Members one list verification takes at most (the tool's limit is 10,000). */
const LIST_VERIFY_MAX = 100_000;

/**
 * What verifying each list's unverified members costs: one credit for each address not
 * checked before. Each list is verified by a job of its own (its members are marked when it
 * ends), so an address on two of the lists is counted in each, as it is charged.
 */
const listCosts = async (platform: TPlatform, userId: number, listIds: number[]) => {
  const costs: { listId: number; unverified: number; controlled: number; credits: number }[] = [];
  for (const listId of new Set(listIds)) {
    await requireList(platform.db, userId, listId);
    const emails = await findUnverifiedEmails(platform.db, userId, listId);
    const controlled = (await findCheckedBefore(platform.db, userId, emails)).length;
    costs.push({ listId, unverified: emails.length, controlled, credits: emails.length - controlled });
  }
  return costs;
};

const sumOf = (costs: { unverified: number; controlled: number; credits: number }[]) => ({
  count: costs.reduce((sum, cost) => sum + cost.credits, 0),
  controlled: costs.reduce((sum, cost) => sum + cost.controlled, 0),
  totalCount: costs.reduce((sum, cost) => sum + cost.unverified, 0),
});

/** `POST /email/verify-credit-check`: what verifying these lists' unverified members costs, as it will be charged. */
export const listCreditCheck = async (platform: TPlatform, userId: number, listIds: number[]) =>
  sumOf(await listCosts(platform, userId, listIds));

/**
 * `POST /api/mailing-lists/verify` (spec §7 verify: mailingLists, storageId): one job for each
 * list that has members to verify (a list verified already is passed over when others are
 * not). The cost is known before anything is charged: when the caller names the figure it
 * confirmed (`creditsToBeUsed`) it must still be the cost (409 otherwise), and a balance that
 * cannot pay for every list refuses them all with the ERR_LIMIT dialog rather than verifying
 * some. `storageId` marks the jobs as the ones a send waits for (the verify-lists upsell).
 */
export const startListsVerification = async (
  platform: TPlatform,
  userId: number,
  request: { mailingLists: number[]; storageId?: string; creditsToBeUsed?: number },
) => {
  const costs = await listCosts(platform, userId, request.mailingLists);
  const toVerify = costs.filter((cost) => cost.unverified > 0);
  if (toVerify.length === 0) {
    throw fieldError(
      'mailingLists',
      costs.length === 1
        ? 'Every member of this list is verified already.'
        : 'Every member of these lists is verified already.',
    );
  }
  const { count } = sumOf(toVerify);
  if (request.creditsToBeUsed !== undefined && request.creditsToBeUsed !== count) {
    throw new HttpError(409, `This verification costs ${count} credits now; please confirm again.`, 'VERIFY_COST');
  }
  if (platform.config.isBillingOn && count > 0) {
    const { totalCredit, usedCredit } = await getBalance(platform.db, userId);
    if (totalCredit - usedCredit < count) throw new InsufficientCreditsError(count, totalCredit - usedCredit);
  }
  const started = [];
  for (const cost of toVerify) {
    started.push(await startListVerification(platform, userId, cost.listId, { storageId: request.storageId }));
  }
  return {
    checkListId: started[0]!.checkListId,
    total: started.reduce((sum, job) => sum + job.total, 0),
    checkedLists: toVerify.map((cost) => cost.listId),
  };
};

/**
 * Verifies a list's unverified members: a job of their addresses (earlier results re-used,
 * one credit for each of the others, charged when it is queued), the list Processing...
 * until the job ends and marks the members found valid.
 */
/**
 * The CSV import's verification offer (spec §4): once the import is in, its list's
 * unverified members are verified as 'Verify Your List' would. The import itself has
 * succeeded either way: when verification cannot start (credits short, nothing left to
 * check) the user is told in a notification, and the answer says so too.
 */
export const verifyAfterImport = async (
  platform: TPlatform,
  userId: number,
  listId: number,
): Promise<{ started: boolean; message: string }> => {
  try {
    const { total } = await startListVerification(platform, userId, listId);
    return { started: true, message: `Verification of ${total.toLocaleString('en-US')} addresses started.` };
  } catch (error) {
    if (!(error instanceof HttpError) && !(error instanceof ValidationError)) throw error;
    const message = `The list was imported, but not verified: ${error.message}`;
    await notifyUser(platform, {
      userId,
      title: 'Your imported list was not verified',
      body: message,
      link: '/mailing-lists',
    });
    return { started: false, message };
  }
};

export const startListVerification = async (
  platform: TPlatform,
  userId: number,
  listId: number,
  { storageId }: { storageId?: string } = {},
) => {
  await requireList(platform.db, userId, listId);
  const emails = await findUnverifiedEmails(platform.db, userId, listId);
  if (emails.length === 0) throw fieldError('mailingLists', 'Every member of this list is verified already.');
  // Members are unique on the list without case and kept in their stored form already.
  const input = { addresses: emails, invalid: [], duplicates: 0, emptyRows: [], unit: 'row' as const };
  const { data } = await storeDraft(platform, userId, input, { listId, max: LIST_VERIFY_MAX, storageId });
  await startVerification(platform, userId, { listId: data.listId, creditsToBeUsed: data.creditToBeUsed });
  await setVerifyStatus(platform.db, userId, listId, 'processing');
  return { checkListId: data.listId, total: data.total };
};

/**
 * The list verifications started for a send that waits for them (its storage id), with
 * whether each has ended: the send goes out once none is queued or running.
 */
export const verificationsOfSend = async (db: Executor, userId: number, storageId: string) =>
  (
    await db
      .selectFrom('verification_jobs')
      .select(['id', 'list_id', 'status', 'total', 'checked', 'valid', 'invalid', 'unknown'])
      .where('user_id', '=', userId)
      .where('storage_id', '=', storageId)
      .where('status', '<>', 'draft')
      .orderBy('id')
      .execute()
  ).map((job) => ({ ...job, hasEnded: job.status === 'finished' || job.status === 'failed' }));

/** The addresses these list verifications found invalid, by list. */
export const invalidAddressesOf = async (db: Executor, userId: number, jobIds: number[]) =>
  jobIds.length === 0
    ? []
    : db
        .selectFrom('verification_items as i')
        .innerJoin('verification_jobs as j', 'j.id', 'i.job_id')
        .select(['j.list_id', 'i.email'])
        .where('j.user_id', '=', userId)
        .where('j.id', 'in', jobIds)
        .where('i.verdict', '=', 'invalid')
        .execute();
