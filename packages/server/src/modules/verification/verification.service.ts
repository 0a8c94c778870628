import { Resolver } from 'node:dns/promises';
import {
  distinctEntries,
  EMAIL_PROBLEMS,
  findEmailHeader,
  firstRowProblem,
  readColumnEntries,
  readPastedEntries,
  resolverNotice,
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
import { publishToUser } from '../../platform/realtime';
import { chargeCredits, getBalance, InsufficientCreditsError, refundCredits } from '../credits/credits.service';
import {
  findUnverifiedEmails,
  genericNames,
  markMembersVerified,
  requireList,
  setVerifyStatus,
} from '../lists/lists.service';
import { notifyUser } from '../notifications/notifications.service';
import { checkResolver, recordResolverHealth, type TResolverHealth } from '../system/resolver-health.service';
import { type TEngineOptions, type TVerification, verifyAddresses } from './engine';
import { verifyJob } from './verification.jobs';

/**
 * Email verification (issue 13): the tool's flow of spec §4 — store (the addresses, their
 * duplicates and what was already checked, as a draft job), last check (credits charged for
 * the addresses to check, atomically, R21; the job queued), the job (addresses verified in
 * slices by the engine, progress published live), and at the end the unknown verdicts'
 * credits refunded. Tables `verification_jobs`, `verification_items`, `verified_addresses`.
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

const engineOptions = (platform: TPlatform): TEngineOptions => {
  const { dnsServers, ...settings } = platform.config.verify;
  const resolver = new Resolver({ timeout: Math.min(settings.stepTimeoutMs, 5_000), tries: 2 });
  if (dnsServers.length > 0) resolver.setServers(dnsServers);
  return { ...settings, resolver, perConnection: 25, slots: platform.sharedSlots, roleNames: genericNames(platform) };
};

/** Verdicts written at once (and at least every FLUSH_MS): the counts and the progress bar move after each. */
const SLICE = 200;
const FLUSH_MS = 500;

/** A batch of verdicts: the items, the user's results by address, the job's counters, then the tabs are told. */
const writeVerdicts = async (
  platform: TPlatform,
  job: { id: number; user_id: number },
  rows: { id: number; email: string; result: TVerification }[],
) => {
  const results = rows.map((row) => row.result);
  const records = rows.map((row) => ({ id: row.id, ...row.result }));
  // An address the broken resolver left unknown was not checked: it is no result to re-use (R48).
  const kept = records.filter((record) => !record.isResolverFault);
  await platform.db.transaction().execute(async (trx) => {
    await sql`
      update verification_items i
         set verdict = r.verdict, reason = r.reason, flags = r.flags, suggestion = r.suggestion, mx = r.mx,
             checked_at = now()
        from jsonb_to_recordset(${JSON.stringify(records)}::jsonb)
             as r(id bigint, verdict text, reason text, flags jsonb, suggestion text, mx text)
       where i.id = r.id`.execute(trx);
    // One row per address (any case): ON CONFLICT cannot touch a row twice in one statement.
    await sql`
      insert into verified_addresses (user_id, email, verdict, reason, flags, suggestion, checked_at)
      select distinct on (lower(r.email)) ${job.user_id}, r.email, r.verdict, r.reason, r.flags, r.suggestion, now()
        from jsonb_to_recordset(${JSON.stringify(kept)}::jsonb)
             as r(email text, verdict text, reason text, flags jsonb, suggestion text)
       order by lower(r.email)
      on conflict (user_id, lower(email)) do update
         set verdict = excluded.verdict, reason = excluded.reason, flags = excluded.flags,
             suggestion = excluded.suggestion, checked_at = excluded.checked_at`.execute(trx);
    const count = (verdict: string) => results.filter((result) => result.verdict === verdict).length;
    await sql`
      update verification_jobs set checked = checked + ${results.length}, valid = valid + ${count('valid')},
             invalid = invalid + ${count('invalid')}, unknown = unknown + ${count('unknown')}, updated_at = now()
       where id = ${job.id}`.execute(trx);
  });
  await publishJob(platform, job.user_id, job.id);
  await recordProbeReach(platform, rows, results);
};

const publishJob = async (platform: TPlatform, userId: number, jobId: number) => {
  const job = await platform.db
    .selectFrom('verification_jobs')
    .selectAll()
    .where('id', '=', jobId)
    .executeTakeFirstOrThrow();
  await publishToUser(platform.db, userId, 'VerificationProgressEvent', {
    id: job.id,
    list_id: job.list_id,
    status: job.status,
    total: job.total,
    checked: job.checked,
    valid: job.valid,
    invalid: job.invalid,
    unknown: job.unknown,
    // Spec §3 "Verification progress" names.
    checkListId: job.id,
    duplicate: job.duplicates,
    controlledBefore: job.recheck ? 0 : job.already_checked,
    uniqueEmails: job.total,
    bar: job.total === 0 ? 100 : Math.floor((job.checked / job.total) * 100),
  });
  // A list verified for a send that waits for it (spec §7 realtime: the upsell's own progress).
  if (job.storage_id !== null) {
    await publishToUser(platform.db, userId, 'VerifyEmailUpsell', {
      checkListId: job.id,
      data: { valid: job.valid, unknown: job.unknown, invalid: job.invalid },
    });
  }
  return job;
};

/** Tells the modules that registered for it that a list's verification ended, in its transaction. */
const tellVerificationEnded = async (
  platform: TPlatform,
  trx: Executor,
  job: Pick<Selectable<VerificationJobsTable>, 'id' | 'user_id' | 'list_id' | 'storage_id'>,
  isFinished: boolean,
) => {
  for (const hook of platform.hooks.listVerificationEnded) {
    await hook(platform, trx, {
      userId: job.user_id,
      jobId: job.id,
      listId: job.list_id!,
      storageId: job.storage_id,
      isFinished,
    });
  }
};

/**
 * Runs a queued job to the end, slice by slice; a worker that dies leaves the slice's
 * addresses unverified and the job's next run takes them up (each slice commits with its
 * counts). At the end the unknown verdicts' credits go back (only the ones charged).
 */
/** Domains whose servers must all fail before the probe counts as blocked (one dead domain proves nothing). */
const BLOCKED_AFTER_DOMAINS = 3;

/**
 * Keeps the installation's probe status: any server reached clears it; a slice in which
 * no server of at least three domains answered, and none was reached, marks the probe
 * blocked (outbound port 25, most likely) for the operator's System page.
 */
const recordProbeReach = async (platform: TPlatform, slice: { email: string }[], results: TVerification[]) => {
  const domainOf = (email: string) => email.slice(email.lastIndexOf('@') + 1).toLowerCase();
  const reached = results.some((result) => result.mx !== null && !result.unreachable);
  const unreachable = new Set(
    results.flatMap((result, index) => (result.unreachable ? [domainOf(slice[index]!.email)] : [])),
  );
  if (!reached && unreachable.size < BLOCKED_AFTER_DOMAINS) return;
  const sample = results.find((result) => result.unreachable)?.reason ?? null;
  await sql`
    insert into verification_probe_status as s (id, blocked_since, last_reached_at, unreachable_domains, detail, updated_at)
    values (1, ${reached ? null : new Date()}, ${reached ? new Date() : null}, ${reached ? 0 : unreachable.size}, ${reached ? null : sample}, now())
    on conflict (id) do update set
      blocked_since = case when ${reached} then null else coalesce(s.blocked_since, excluded.blocked_since) end,
      last_reached_at = coalesce(excluded.last_reached_at, s.last_reached_at),
      unreachable_domains = case when ${reached} then 0 else s.unreachable_domains + excluded.unreachable_domains end,
      detail = case when ${reached} then s.detail else excluded.detail end,
      updated_at = now()`.execute(platform.db);
};

/** For the operator's System page: whether the probe reaches receiving servers from here. */
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

export const probeStatus = async (db: Executor) => {
  const row = await db.selectFrom('verification_probe_status').selectAll().where('id', '=', 1).executeTakeFirst();
  return {
    blockedSince: row?.blocked_since?.toISOString() ?? null,
    lastReachedAt: row?.last_reached_at?.toISOString() ?? null,
    unreachableDomains: row?.unreachable_domains ?? 0,
    detail: row?.detail ?? null,
  };
};

/**
 * A running job's eye on its resolver (R48): whether it finds the names that must exist,
 * asked at the start and again before each batch holding an invalid verdict on the DNS's
 * word alone, and recorded for the operator's System page. A resolver that broke meanwhile
 * turns such verdicts into unknown ones before they count.
 */
const resolverWatch = (platform: TPlatform, options: TEngineOptions) => {
  const health = async (): Promise<TResolverHealth> => {
    const found = await checkResolver((name) => options.resolver.resolveMx(name), platform.config.dnsCanaries);
    await recordResolverHealth(platform.db, 'verification', platform.config.verify.dnsServers, found);
    return found;
  };
  /** The batch as it may count: DNS-only invalid verdicts become unknown while the resolver is broken. */
  const believed = async <Row extends { result: TVerification }>(rows: Row[]): Promise<Row[]> => {
    if (!rows.some((row) => row.result.isDnsVerdict) || !(await health()).isBroken) return rows;
    return rows.map((row) =>
      row.result.isDnsVerdict
        ? {
            ...row,
            result: {
              ...row.result,
              verdict: 'unknown',
              reason: VERIFY_MESSAGES.resolverBroken,
              isDnsVerdict: false,
              isResolverFault: true,
            },
          }
        : row,
    );
  };
  return { health, believed };
};

export const runVerification = async (platform: TPlatform, jobId: number) => {
  const job = await platform.db
    .updateTable('verification_jobs')
    .set({ status: 'running', updated_at: new Date() })
    .where('id', '=', jobId)
    .where('status', 'in', ['queued', 'running'])
    .returning(['id', 'user_id', 'credits_charged'])
    .executeTakeFirst();
  if (!job) return;
  const options = engineOptions(platform);
  const resolver = resolverWatch(platform, options);
  // Before any verdict counts, the resolver must find the names that must exist (R48); when
  // it does not, nothing that rests on DNS is asked.
  if ((await resolver.health()).isBroken) options.resolverFault = VERIFY_MESSAGES.resolverBroken;
  // Every address still without a verdict (all of them, or what a crash left), verified as
  // one stream: domains side by side, each verdict written in batches as it comes, so a
  // slow or greylisting server holds up its own addresses only.
  const todo = await platform.db
    .selectFrom('verification_items')
    .select(['id', 'email'])
    .where('job_id', '=', jobId)
    .where('verdict', 'is', null)
    .orderBy('id')
    .execute();
  let batch: { id: number; email: string; result: TVerification }[] = [];
  let writing = Promise.resolve();
  let failure: unknown = null;
  const write = () => {
    const rows = batch;
    batch = [];
    if (rows.length === 0 || failure) return writing;
    // One write at a time, in order; the first failure ends the job (a retry takes up what is left).
    writing = writing.then(() =>
      resolver
        .believed(rows)
        .then((believed) => writeVerdicts(platform, job, believed))
        .catch((error: unknown) => {
          failure ??= error;
        }),
    );
    return writing;
  };
  const timer = setInterval(() => void write(), FLUSH_MS);
  try {
    await verifyAddresses(
      todo.map((item) => item.email),
      options,
      (index, result) => {
        batch.push({ id: todo[index]!.id, email: todo[index]!.email, result });
        if (batch.length >= SLICE) void write();
      },
    );
  } finally {
    clearInterval(timer);
    await write();
  }
  if (failure) throw failure;
  await platform.db.transaction().execute(async (trx) => {
    // Unknown verdicts are not charged: their credits go back (those found in earlier results cost nothing).
    // Never more than was charged (nothing, without billing).
    const refund = Math.min(
      job.credits_charged,
      (
        await sql<{ unknown: number }>`
          select count(*)::int as unknown from verification_items
           where job_id = ${jobId} and verdict = 'unknown' and not from_cache`.execute(trx)
      ).rows[0]!.unknown,
    );
    // Addresses the broken resolver left unknown: the user is told why (R48).
    const unchecked = (
      await sql<{ count: number }>`
        select count(*)::int as count from verification_items
         where job_id = ${jobId} and verdict = 'unknown' and reason = ${VERIFY_MESSAGES.resolverBroken}`.execute(trx)
    ).rows[0]!.count;
    const done = await trx
      .updateTable('verification_jobs')
      .set({
        status: 'finished',
        credits_refunded: refund,
        notice: unchecked > 0 ? resolverNotice(unchecked, job.credits_charged > 0) : null,
        finished_at: new Date(),
        updated_at: new Date(),
      })
      .where('id', '=', jobId)
      .where('status', '=', 'running')
      .executeTakeFirst();
    if (done.numUpdatedRows > 0n && refund > 0) {
      await refundCredits(trx, {
        userId: job.user_id,
        type: 'verify',
        amount: refund,
        reference: `verification ${jobId}: unknown verdicts`,
      });
    }
  });
  const finished = await publishJob(platform, job.user_id, jobId);
  if (finished.list_id !== null) {
    // "Verify Your List": the members found valid are marked, the list shows Verified with the date.
    const valid = await platform.db
      .selectFrom('verification_items')
      .select('email')
      .where('job_id', '=', jobId)
      .where('verdict', '=', 'valid')
      .execute();
    await platform.db.transaction().execute(async (trx) => {
      await markMembersVerified(
        trx,
        finished.list_id!,
        valid.map((row) => row.email),
      );
      await setVerifyStatus(trx, job.user_id, finished.list_id!, 'verified');
      await publishToUser(trx, job.user_id, 'VerifyProgressDoneForUpsell', { status: true, checkListId: jobId });
      await tellVerificationEnded(platform, trx, finished, true);
    });
  }
  await notifyUser(platform, {
    userId: job.user_id,
    title: 'Your email verification finished',
    body: `${finished.valid} valid, ${finished.invalid} invalid, ${finished.unknown} unknown of ${finished.total}.${
      finished.notice ? ` ${finished.notice}` : ''
    }`,
    link: `/tools/email-verification?job=${jobId}`,
  });
};

/**
 * A job that failed for good (its last retry threw, or its worker died every time): it
 * ends `failed`, the credits of the addresses it did not check and of its unknown verdicts
 * go back (never more than it was charged), a list it verified is no longer Processing...,
 * and the user is told. Safe to run twice: only a queued or running job is ended.
 */
export const giveUpVerification = async (platform: TPlatform, jobId: number) => {
  const ended = await platform.db.transaction().execute(async (trx) => {
    const job = await trx
      .selectFrom('verification_jobs')
      .selectAll()
      .where('id', '=', jobId)
      .forUpdate()
      .executeTakeFirst();
    if (!job || (job.status !== 'queued' && job.status !== 'running')) return null;
    const refundable = (
      await sql<{ count: number }>`
        select count(*)::int as count from verification_items
         where job_id = ${jobId} and not from_cache and (verdict is null or verdict = 'unknown')`.execute(trx)
    ).rows[0]!.count;
    const refund = Math.max(0, Math.min(refundable, job.credits_charged - job.credits_refunded));
    await trx
      .updateTable('verification_jobs')
      .set({
        status: 'failed',
        error: 'The verification failed after its retries.',
        credits_refunded: job.credits_refunded + refund,
        finished_at: new Date(),
        updated_at: new Date(),
      })
      .where('id', '=', jobId)
      .execute();
    if (refund > 0) {
      await refundCredits(trx, {
        userId: job.user_id,
        type: 'verify',
        amount: refund,
        reference: `verification ${jobId}: failed, addresses not checked`,
      });
    }
    if (job.list_id !== null) {
      await setVerifyStatus(trx, job.user_id, job.list_id, 'unverified');
      await publishToUser(trx, job.user_id, 'VerifyProgressDoneForUpsell', { status: false, checkListId: jobId });
      await tellVerificationEnded(platform, trx, job, false);
    }
    return { userId: job.user_id, refund };
  });
  if (!ended) return;
  const job = await publishJob(platform, ended.userId, jobId);
  await notifyUser(platform, {
    userId: ended.userId,
    title: 'Your email verification could not be finished',
    body: `${job.checked} of ${job.total} were checked. ${VERIFY_MESSAGES.failed} (${ended.refund} credits)`,
    link: `/tools/email-verification?job=${jobId}`,
  });
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

const itemsQuery = (platform: TPlatform, jobId: number, verdict: string | undefined) => {
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
  await requireJob(platform, userId, id);
  const page = await paginate(itemsQuery(platform, id, query.verdict), query, {
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
  await requireJob(platform, userId, id);
  const rows = await itemsQuery(platform, id, query.verdict).orderBy('id').execute();
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
