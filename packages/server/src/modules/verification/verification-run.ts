import { Resolver } from 'node:dns/promises';
import { resolverNotice, VERIFY_MESSAGES } from '@sendwell/contracts';
import { type Selectable, sql } from 'kysely';
import type { TPlatform } from '../../platform/context';
import type { Executor } from '../../platform/db';
import type { VerificationJobsTable } from '../../platform/db-schema';
import { publishToUser } from '../../platform/realtime';
import { refundCredits } from '../credits/credits.service';
import { genericNames, markMembersVerified, setVerifyStatus } from '../lists/lists.service';
import { notifyUser } from '../notifications/notifications.service';
import { checkResolver, recordResolverHealth, type TResolverHealth } from '../system/resolver-health.service';
import { type TEngineOptions, type TVerification, verifyAddresses } from './engine';

/**
 * Running a verification job (issue 13): the engine over its items in slices, each slice's
 * verdicts written with the job's counters and published live, the probe's reach and the
 * resolver watched as it goes, the modules registered for a list's verification told when it
 * ends, and a job given up ended with its refund. The flow before (store, last check, the
 * queue) and the reads are `verification.service.ts`.
 */
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
