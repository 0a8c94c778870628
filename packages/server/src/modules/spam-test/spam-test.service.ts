import crypto from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import {
  SPAM_TEST_MESSAGES,
  type TLimitDialog,
  type TSpamReport,
  type TSpamTest,
  type TSpamTestResult,
  type ZSpamTestRequest,
} from '@sendwell/contracts';
import { sql } from 'kysely';
import type { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import { CpuTaskError } from '../../platform/cpu-pool';
import { HttpError, notFound } from '../../platform/errors';
import { paginate } from '../../platform/paging';
import { publicUrl } from '../../platform/public-url';
import { publishToUser } from '../../platform/realtime';
import { listAccountRows } from '../accounts/accounts.service';
import { chargeCredits, getBalance, InsufficientCreditsError, refundCredits } from '../credits/credits.service';
import { createSourcedSend, sourcedSendOutcomes, trackedLinkTargets } from '../delivery/delivery.service';
import { resolveSender, saveTemplate } from '../send-email/send-email.service';
import { findArrival, keepAnalysis } from '../test-inbox/test-inbox.service';
import type { TAnalysisSettings, TArrival, TContentAnalysis, TReadOwnChecks } from './analysis';
import { expireSpamTestJob } from './spam-test.jobs';

/**
 * Spam tests (spec §4 spam test): the user's message goes through their own account, by the
 * one delivery engine, to a unique address of the test mailbox; the mailbox keeps it as it
 * arrived and scores it out of 10. Credits are charged when the test is sent, in the
 * transaction that records it, and given back once if the message never arrives.
 */

export type TSpamTestForm = z.output<typeof ZSpamTestRequest>;

const TOKEN_PATTERN = /^t-([a-z0-9]{20})$/;

/** `t-<token>@SPAM_TEST_DOMAIN` → the token; null for any other address. */
export const spamTestToken = (platform: TPlatform, address: string) => {
  const at = address.lastIndexOf('@');
  if (at === -1 || address.slice(at + 1).toLowerCase() !== platform.config.spamTest.domain) return null;
  return TOKEN_PATTERN.exec(address.slice(0, at).toLowerCase())?.[1] ?? null;
};

export const isSpamTestAddress = (platform: TPlatform, address: string) => spamTestToken(platform, address) !== null;

const newToken = () => {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from(crypto.randomBytes(20), (byte) => alphabet[byte % alphabet.length]).join('');
};

/** The spec's ERR_LIMIT dialog: texts and colours chosen here, shown as they are by the page. */
const limitError = (message: string, dialog: Omit<TLimitDialog, 'message'>) =>
  new HttpError(402, message, 'ERR_LIMIT', { ...dialog, message } satisfies TLimitDialog);

/** A balance that cannot pay for the test: the dialog offers Buy Credits. */
const noCreditsError = (message: string) =>
  limitError(message, {
    title: SPAM_TEST_MESSAGES.noCreditsTitle,
    confirmButtonText: 'Buy Credits',
    cancelButtonText: 'Cancel',
    confirmButtonColor: 'blue',
    cancelButtonColor: 'gray',
    link: '/settings/subscription',
  });

/** `POST /api/tools/mail-testing/send`. */
export const startSpamTest = async (platform: TPlatform, userId: number, form: TSpamTestForm) => {
  const settings = platform.config.spamTest;
  const sender = await resolveSender(platform, userId, form);
  const balance = await getBalance(platform.db, userId);
  const usable = balance.totalCredit - balance.usedCredit;
  if (usable < settings.credits) {
    throw noCreditsError(
      `A spam test costs ${settings.credits} credits; you have ${usable}. To complete this process; please buy credits.`,
    );
  }
  // Tests past their deadline no longer count as waiting, whether or not their job has run.
  await expireOverdueSpamTests(platform, userId);
  const token = newToken();
  const address = `t-${token}@${settings.domain}`;
  const test = await platform.db.transaction().execute(async (trx) => {
    // One user's tests are started one at a time, so the waiting count below holds.
    await sql`select pg_advisory_xact_lock(${SPAM_TEST_LOCK_CLASS}::int, (${userId}::bigint % 2147483648)::int)`.execute(
      trx,
    );
    const waiting = await trx
      .selectFrom('spam_tests')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where('user_id', '=', userId)
      .where('status', 'in', ['waiting', 'received'])
      .executeTakeFirstOrThrow();
    if (Number(waiting.count) >= settings.maxWaiting) {
      throw limitError(
        `${waiting.count} of your spam tests are still waiting for their message. Start another when one of them has its score.`,
        {
          title: SPAM_TEST_MESSAGES.tooManyTitle,
          confirmButtonText: 'Open test history',
          cancelButtonText: 'OK',
          confirmButtonColor: 'blue',
          cancelButtonColor: 'gray',
          link: '/tools/mail-testing/history',
        },
      );
    }
    const row = await trx
      .insertInto('spam_tests')
      .values({
        user_id: userId,
        account_id: sender.account.id,
        token,
        address,
        from_name: sender.fromName,
        from_address: sender.fromAddress,
        subject: form.subject,
        html: form.mail_body,
        credits_charged: settings.credits,
      })
      .returning(['id'])
      .executeTakeFirstOrThrow();
    if (settings.credits > 0) {
      await chargeCredits(trx, {
        userId,
        type: 'spam-check',
        amount: settings.credits,
        reference: `spam-test:${row.id}`,
      }).catch((error: unknown) => {
        // Another tab spent the credits between the check and now.
        if (error instanceof InsufficientCreditsError) throw noCreditsError(error.message);
        throw error;
      });
    }
    // The message is an ordinary one of the engine: the account's transport, its headers,
    // and (as a receiver would see them) tracked links and the List-Unsubscribe header.
    const { sendId, recipients } = await createSourcedSend(trx, platform, userId, {
      source: 'spam-test',
      accountId: sender.account.id,
      fromName: sender.fromName,
      fromAddress: sender.fromAddress,
      subject: form.subject,
      html: form.mail_body,
      recipients: [{ email: address }],
    });
    if (recipients === 0) {
      throw new HttpError(
        409,
        `This account does not send to ${settings.domain} (the address is on its suppression list).`,
        'SUPPRESSED',
      );
    }
    await trx.updateTable('spam_tests').set({ send_id: sendId }).where('id', '=', row.id).execute();
    await platform.queue.enqueue(
      expireSpamTestJob,
      { testId: row.id },
      { executor: trx, startAfter: new Date(Date.now() + settings.timeoutMs), singletonKey: `spam-test-${row.id}` },
    );
    return row;
  });
  return { status: true, message: SPAM_TEST_MESSAGES.sent, code: 'OK', data: { mail: test.id, to: address } };
};

/** Keeps the advisory locks of spam tests apart from others (the user id second). */
const SPAM_TEST_LOCK_CLASS = 0x5ba_7e57;

let cachedResolver: { servers: string; resolve: TAnalysisSettings['resolve'] } | null = null;

/** The DNS a receiver would ask (SPAM_TEST_DNS_SERVERS), in mailauth's resolver form. */
const resolverOf = (platform: TPlatform): TAnalysisSettings['resolve'] => {
  const servers = platform.config.spamTest.dnsServers.join(',');
  if (cachedResolver?.servers === servers) return cachedResolver.resolve;
  const resolver = new Resolver({ timeout: 3_000, tries: 2 });
  if (servers) resolver.setServers(platform.config.spamTest.dnsServers);
  const resolve = (name: string, type: string) => resolver.resolve(name, type);
  cachedResolver = { servers, resolve };
  return resolve;
};

/** The host of Sendwell's click-tracking links: a tracked link stands for the address it was written with. */
const trackingHostsOf = (platform: TPlatform) => {
  try {
    return [new URL(publicUrl(platform)).hostname];
  } catch {
    return [];
  }
};

/**
 * Reads a message on a thread of the CPU pool (R40): mailparser and the checks take 0.1 s
 * and more for a large message. One that outlives the thread's time or memory is scored as
 * unreadable; a full pool is the caller's (503 for a request, a retry for a job).
 */
const readOnCpu =
  (platform: TPlatform): TReadOwnChecks =>
  async (raw, context) => {
    try {
      return await platform.cpu.run(
        'readOwnChecks',
        { raw, context },
        { timeoutMs: platform.config.messageWork.timeoutMs },
      );
    } catch (error) {
      if (!(error instanceof CpuTaskError) || error.kind === 'busy') throw error;
      return (await loadAnalysis()).unreadableOwnChecks(error.message);
    }
  };

/**
 * How the analysis runs here: the receiver's DNS, the engines, Sendwell's tracking host, a CPU
 * thread for reading the message, and (for a message of `userId`'s) the targets of the user's
 * own tracked links, read from delivery's stored links.
 */
export const analysisSettings = (platform: TPlatform, userId?: number): TAnalysisSettings => ({
  resolve: resolverOf(platform),
  mta: platform.config.spamTest.domain,
  dnsbl: platform.config.spamTest.dnsbl,
  rspamdUrl: platform.config.spamTest.rspamdUrl,
  spamd: platform.config.spamTest.spamd,
  engineTimeoutMs: platform.config.spamTest.engineTimeoutMs,
  trackingHosts: trackingHostsOf(platform),
  readOwnChecks: readOnCpu(platform),
  ...(userId === undefined
    ? {}
    : { resolveTrackedLinks: (urls: string[]) => trackedLinkTargets(platform, userId, urls) }),
});

/**
 * The analysis and its checks (with tldts's list of public suffixes, mailparser, mailauth) are
 * loaded with the first message read, not at every process start: most processes never read one.
 */
const loadAnalysis = () => import('./analysis');

/**
 * The spam test's analysis of a message of `userId`'s (the test inbox shows it for each of its
 * messages): its links read through the user's own click tracking.
 */
export const analyse = async (platform: TPlatform, userId: number, arrival: TArrival): Promise<TSpamReport> =>
  (await loadAnalysis()).analyseMessage(arrival, analysisSettings(platform, userId));

const headersOf = async (raw: Buffer) => (await loadAnalysis()).headersOf(raw);

/**
 * What a receiver makes of one of the user's test-inbox messages: its headers as they
 * arrived and the spam test's analysis, computed the first time it is asked for and kept
 * with the message. Messages kept before the raw message was stored have neither; null
 * when the message is not the user's.
 */
export const analyseTestInboxMessage = async (platform: TPlatform, userId: number, id: number) => {
  const arrival = await findArrival(platform, userId, id);
  if (!arrival) return null;
  if (!arrival.raw) return { headers: null, report: null };
  let report = arrival.analysis as TSpamReport | null;
  if (!report) {
    report = await analyse(platform, userId, { ...arrival, raw: arrival.raw });
    await keepAnalysis(platform, id, report);
  }
  return { headers: await headersOf(arrival.raw), report };
};

/**
 * The spam test's own header and content checks of a composed message, with their score,
 * and nothing that costs a credit or a connection (no engines, DNS or mailbox): what the
 * pre-send check shows. The same findings, with the same points, as a spam test of it.
 */
export const checkComposedMessage = async (platform: TPlatform, raw: Buffer): Promise<TContentAnalysis> =>
  (await loadAnalysis()).analyseContent(
    raw,
    { now: new Date(), trackingHosts: trackingHostsOf(platform) },
    readOnCpu(platform),
  );

/**
 * Scores a test whose message has arrived and tells the user's tabs. Safe to run twice
 * (the mailbox right after the message, the expiry job for one the mailbox did not finish):
 * only a test still 'received' is scored.
 */
const scoreSpamTest = async (platform: TPlatform, testId: number) => {
  const test = await platform.db
    .selectFrom('spam_tests')
    .select(['id', 'user_id', 'raw', 'remote_ip', 'helo', 'mail_from', 'address', 'received_at'])
    .where('id', '=', testId)
    .where('status', '=', 'received')
    .executeTakeFirst();
  if (!test?.raw) return;
  const report = await analyse(platform, test.user_id, {
    raw: test.raw,
    ip: test.remote_ip ?? '127.0.0.1',
    helo: test.helo ?? '',
    mailFrom: test.mail_from ?? '',
    rcptTo: test.address,
    receivedAt: test.received_at ?? undefined,
  });
  await platform.db.transaction().execute(async (trx) => {
    const scored = await trx
      .updateTable('spam_tests')
      .set({ status: 'scored', score: String(report.score), report: JSON.stringify(report), scored_at: new Date() })
      .where('id', '=', testId)
      .where('status', '=', 'received')
      .returning(['id'])
      .executeTakeFirst();
    if (scored)
      await publishToUser(trx, test.user_id, 'SpamTestEvent', { id: testId, status: 'scored', score: report.score });
  });
};

/**
 * The test mailbox's door: a message for `t-<token>@SPAM_TEST_DOMAIN` is kept as it
 * arrived with what the mailbox saw of its sender, then scored. 'unknown' for an address
 * no test is waiting at (the mailbox refuses it, as a server refuses an unknown mailbox).
 */
export const receiveSpamTestMessage = async (
  platform: TPlatform,
  arrival: TArrival,
): Promise<'accepted' | 'unknown'> => {
  const token = spamTestToken(platform, arrival.rcptTo);
  if (!token) return 'unknown';
  const kept = await platform.db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('spam_tests')
      .set({
        status: 'received',
        raw: arrival.raw,
        remote_ip: arrival.ip,
        helo: arrival.helo,
        mail_from: arrival.mailFrom,
        received_at: new Date(),
      })
      .where('token', '=', token)
      .where('status', '=', 'waiting')
      // Only before the deadline: past it the credits go back, and a late message must not be scored for free.
      .where('created_at', '>', deadlineCutoff(platform))
      .returning(['id', 'user_id'])
      .executeTakeFirst();
    if (row) await publishToUser(trx, row.user_id, 'SpamTestEvent', { id: row.id, status: 'received', score: null });
    return row;
  });
  if (!kept) {
    // A second copy of a message already kept (a retry after a lost answer) is taken and
    // dropped; one for a test past its deadline is refused and the test failed and refunded
    // now (its deadline job may not have run yet), as is any unknown token.
    const known = await platform.db
      .selectFrom('spam_tests')
      .select(['id', 'status'])
      .where('token', '=', token)
      .executeTakeFirst();
    if (known?.status === 'waiting') await expireSpamTest(platform, known.id);
    return known?.status === 'received' || known?.status === 'scored' ? 'accepted' : 'unknown';
  }
  await scoreSpamTest(platform, kept.id).catch((error: unknown) =>
    platform.log.error({ err: error, testId: kept.id }, 'spam test not scored; the expiry job tries again'),
  );
  return 'accepted';
};

/**
 * A test that is still waiting gives its credits back once, with the reason, when its
 * message cannot arrive any more: the engine failed it, or the time ran out.
 */
const failSpamTest = async (platform: TPlatform, testId: number, error: string) =>
  platform.db.transaction().execute(async (trx) => {
    const failed = await trx
      .updateTable('spam_tests')
      .set((eb) => ({ status: 'failed', error, credits_refunded: eb.ref('credits_charged') }))
      .where('id', '=', testId)
      .where('status', '=', 'waiting')
      .returning(['id', 'user_id', 'credits_charged'])
      .executeTakeFirst();
    if (!failed) return;
    if (failed.credits_charged > 0) {
      await refundCredits(trx, {
        userId: failed.user_id,
        type: 'spam-check',
        amount: failed.credits_charged,
        reference: `spam-test:${testId}`,
      });
    }
    await publishToUser(trx, failed.user_id, 'SpamTestEvent', { id: testId, status: 'failed', score: null });
  });

/** Why the engine gave up on the test's message, if it did. */
const engineFailure = async (platform: TPlatform, userId: number, sendId: number | null) => {
  if (sendId === null) return null;
  const [outcome] = await sourcedSendOutcomes(platform, platform.db, userId, sendId);
  if (!outcome) return null;
  if (outcome.status === 'failed') {
    return `Your sending account could not deliver the test email: ${outcome.error ?? outcome.status}.`;
  }
  return null;
};

/**
 * The creation time before which a test is past its deadline now (SPAM_TEST_TIMEOUT_MINUTES
 * after it was sent), on the database's clock, which wrote `created_at`.
 */
const deadlineCutoff = (platform: TPlatform) =>
  sql<Date>`now() - ${platform.config.spamTest.timeoutMs} * interval '1 millisecond'`;

/**
 * Fails and refunds the user's tests still waiting past their deadline, at once: a read of
 * the result or the history, or a new test, does not wait for the deadline job (which a
 * busy or stopped worker can run late). Each goes through the job's own conditional path.
 */
const expireOverdueSpamTests = async (platform: TPlatform, userId: number, testId?: number) => {
  let query = platform.db
    .selectFrom('spam_tests')
    .select('id')
    .where('user_id', '=', userId)
    .where('status', '=', 'waiting')
    .where('created_at', '<=', deadlineCutoff(platform));
  if (testId !== undefined) query = query.where('id', '=', testId);
  for (const { id } of await query.execute()) await expireSpamTest(platform, id);
};

/** The expiry job: a test still waiting at its deadline is failed and refunded; one received but not scored is scored. */
export const expireSpamTest = async (platform: TPlatform, testId: number) => {
  const test = await platform.db
    .selectFrom('spam_tests')
    .select(['id', 'user_id', 'status', 'send_id'])
    .where('id', '=', testId)
    .executeTakeFirst();
  if (!test) return;
  if (test.status === 'received') return scoreSpamTest(platform, testId);
  if (test.status !== 'waiting') return;
  const failure = await engineFailure(platform, test.user_id, test.send_id);
  const minutes = Math.round(platform.config.spamTest.timeoutMs / 6_000) / 10;
  await failSpamTest(
    platform,
    testId,
    failure ??
      `The test email did not reach the test mailbox within ${minutes} minutes, so the credits were given back. Check that your account can send to ${platform.config.spamTest.domain}.`,
  );
};

type TSpamTestRow = {
  id: number;
  status: TSpamTest['status'];
  address: string;
  account_id: number | null;
  account_name: string | null;
  from_name: string;
  from_address: string;
  subject: string;
  score: string | null;
  error: string | null;
  credits_charged: number;
  credits_refunded: number;
  created_at: Date;
  received_at: Date | null;
  scored_at: Date | null;
};

const toSpamTest = (row: TSpamTestRow): TSpamTest => ({
  id: row.id,
  status: row.status,
  address: row.address,
  account_id: row.account_id,
  account_name: row.account_name,
  from: row.from_name ? `${row.from_name} <${row.from_address}>` : row.from_address,
  subject: row.subject,
  score: row.score === null ? null : Number(row.score),
  error: row.error,
  credits_charged: row.credits_charged,
  credits_refunded: row.credits_refunded,
  created_at: row.created_at.toISOString(),
  received_at: row.received_at?.toISOString() ?? null,
  scored_at: row.scored_at?.toISOString() ?? null,
});

const testColumns = [
  'spam_tests.id',
  'spam_tests.status',
  'spam_tests.address',
  'spam_tests.account_id',
  'spam_tests.from_name',
  'spam_tests.from_address',
  'spam_tests.subject',
  'spam_tests.score',
  'spam_tests.error',
  'spam_tests.credits_charged',
  'spam_tests.credits_refunded',
  'spam_tests.created_at',
  'spam_tests.received_at',
  'spam_tests.scored_at',
] as const;

/** The account's name is looked up through its owner's service, not joined (DESIGN §6). */
const withAccountNames = async (platform: TPlatform, userId: number, rows: Omit<TSpamTestRow, 'account_name'>[]) => {
  const names = new Map((await listAccountRows(platform.db, userId)).map((account) => [account.id, account.name]));
  return rows.map((row) => ({
    ...row,
    account_name: row.account_id === null ? null : (names.get(row.account_id) ?? null),
  }));
};

/**
 * `GET /api/tools/mail-testing/result/{id}`: the test, its report and headers. A test still
 * waiting whose message the engine has given up on is failed (and refunded) here and now,
 * rather than at its deadline.
 */
export const getSpamTest = async (platform: TPlatform, userId: number, id: number): Promise<TSpamTestResult> => {
  const find = () =>
    platform.db
      .selectFrom('spam_tests')
      .select([...testColumns, 'spam_tests.html', 'spam_tests.report', 'spam_tests.raw', 'spam_tests.send_id'])
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .executeTakeFirst();
  let row = await find();
  if (!row) throw notFound('This spam test does not exist.');
  if (row.status === 'waiting') {
    const failure = await engineFailure(platform, userId, row.send_id);
    if (failure) await failSpamTest(platform, id, failure);
    else await expireOverdueSpamTests(platform, userId, id);
    row = (await find())!;
  }
  const [named] = await withAccountNames(platform, userId, [row]);
  return {
    ...toSpamTest(named!),
    html: row.html,
    report: (row.report as TSpamReport | null) ?? null,
    headers: row.raw ? await headersOf(row.raw) : null,
  };
};

export const listSpamTests = async (
  platform: TPlatform,
  userId: number,
  query: { page: number; per_page: number; column: 'created_at' | 'score'; order: 'asc' | 'desc' },
) => {
  await expireOverdueSpamTests(platform, userId);
  const page = await paginate(
    platform.db
      .selectFrom('spam_tests')
      .select([...testColumns])
      .where('user_id', '=', userId),
    query,
    { sortColumns: { created_at: 'created_at', score: sql`coalesce(score, -1)` }, searchColumns: [], tieBreaker: 'id' },
  );
  return { data: (await withAccountNames(platform, userId, page.data)).map(toSpamTest), meta: page.meta };
};

/** The message as the mailbox received it, for download. */
export const rawOfSpamTest = async (platform: TPlatform, userId: number, id: number) => {
  const row = await platform.db
    .selectFrom('spam_tests')
    .select('raw')
    .where('user_id', '=', userId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw notFound('This spam test does not exist.');
  if (!row.raw) throw new HttpError(409, 'The test email has not arrived yet.', 'NOT_ARRIVED');
  return row.raw;
};

/** `POST /api/tools/mail-testing/save-as-template`: the tested subject and message as a template of the user's own. */
export const saveSpamTestAsTemplate = async (
  platform: TPlatform,
  userId: number,
  input: { name: string; sent_id: number },
) => {
  const row = await platform.db
    .selectFrom('spam_tests')
    .select(['subject', 'html'])
    .where('user_id', '=', userId)
    .where('id', '=', input.sent_id)
    .executeTakeFirst();
  if (!row) throw notFound('This spam test does not exist.');
  return saveTemplate(platform, userId, { name: input.name, subject: row.subject, html: row.html, document: null });
};
