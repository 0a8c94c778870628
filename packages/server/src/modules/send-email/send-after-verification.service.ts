import {
  isSendLater,
  parseDeliveryTime,
  type TSendAfterVerification,
  type TSendEmailForm,
  ZSendEmailRequest,
} from '@sendwell/contracts';
import { type Selectable, sql } from 'kysely';
import type { TPlatform } from '../../platform/context';
import type { Executor } from '../../platform/db';
import type { SendsAfterVerificationTable } from '../../platform/db-schema';
import { HttpError, notFound, ValidationError } from '../../platform/errors';
import { publishToUser } from '../../platform/realtime';
import { findUserProfile } from '../auth/auth.service';
import { unsubscribeFromList } from '../lists/members.service';
import type { TListVerificationEnded } from '../module';
import { notifyUser } from '../notifications/notifications.service';
import { invalidAddressesOf, verificationsOfSend } from '../verification/verification.service';
import { startAfterVerificationJob } from './send-email.jobs';
import { checkSendForm, sendEmail } from './send-email.service';

/**
 * The verify-lists upsell of Send Email (spec §2 screen 2, §4, §7; issue 47): the user
 * verifies the chosen lists from the confirmation (`POST /mailing-lists/verify` with a
 * `storageId`), then sends with the same `storageId`: while one of those verifications runs,
 * the send waits here (`sends_after_verification`), and goes out by itself when the last one
 * ends, through `sendEmail` like any other, the addresses found invalid first unsubscribed
 * from the lists when the user asked for that. `UpsellStart` tells the user's tabs.
 *
 * Exactly once: the start is fenced by the row's status (`waiting` → `starting` under its
 * lock, committed before the send is made; `started` with the send after). A worker that dies
 * between the two leaves `starting`: the send may or may not exist, so it is never made
 * again; once stale the row is `failed` and the user is told to look in History.
 */

/** How long a start may take before a `starting` row is taken for a crash. */
const STARTING_STALE_MS = 10 * 60_000;

/** Rows no longer waiting are kept this long for the page, then deleted by the hourly cleanup. */
const KEPT_DAYS = 30;

type TRow = Selectable<SendsAfterVerificationTable>;

/**
 * Serialises, per user, the send that starts waiting and the end of a verification it waits
 * for: whichever comes second sees the other (a send that found every verification ended
 * starts at once; a verification that ends finds the waiting send and queues its start).
 */
const lockSendsOf = (trx: Executor, userId: number) =>
  sql`select pg_advisory_xact_lock(hashtextextended(${`sends-after-verification:${userId}`}, 0))`.execute(trx);

const findRow = (db: Executor, userId: number, storageId: string) =>
  db
    .selectFrom('sends_after_verification')
    .selectAll()
    .where('user_id', '=', userId)
    .where('storage_id', '=', storageId)
    .executeTakeFirst();

/** A row as the page shows it, with the verification it waits for. */
const toWaiting = async (db: Executor, row: TRow): Promise<TSendAfterVerification> => {
  const jobs = await verificationsOfSend(db, row.user_id, row.storage_id);
  const sum = (key: 'total' | 'checked' | 'valid' | 'invalid' | 'unknown') =>
    jobs.reduce((total, job) => total + job[key], 0);
  return {
    storageId: row.storage_id,
    subject: row.subject,
    listIds: row.list_ids.map(Number),
    status: row.status,
    sendId: row.send_id,
    error: row.error,
    leaveOutInvalid: row.drop_invalid,
    verification: {
      jobs: jobs.map((job) => job.id),
      total: sum('total'),
      checked: sum('checked'),
      valid: sum('valid'),
      invalid: sum('invalid'),
      unknown: sum('unknown'),
    },
  };
};

/**
 * `POST /api/email/send`: a form without a `storageId`, or one under which no list was
 * verified, is sent as always. One naming the verifications of its lists waits for them
 * (answered with `waiting`), or, when they have all ended already, goes out at once the same
 * way. The form is checked first, as for a send now (a 422 before anything waits); sending
 * the same `storageId` again answers the send that waits (or went) instead of a second one.
 */
export const sendOrWait = async (platform: TPlatform, userId: number, form: TSendEmailForm) => {
  const { storageId } = form;
  if (!storageId) return sendEmail(platform, userId, form);
  await checkSendForm(platform, userId, form);
  const row = await platform.db.transaction().execute(async (trx) => {
    await lockSendsOf(trx, userId);
    const existing = await findRow(trx, userId, storageId);
    if (existing) return existing;
    const jobs = await verificationsOfSend(trx, userId, storageId);
    if (jobs.length === 0) return null;
    const chosen = new Set(form.to);
    if (jobs.some((job) => job.list_id === null || !chosen.has(job.list_id))) {
      throw new ValidationError({ storageId: ['These verifications are not of the lists this email goes to.'] });
    }
    return trx
      .insertInto('sends_after_verification')
      .values({
        user_id: userId,
        storage_id: storageId,
        form: JSON.stringify(form),
        list_ids: form.to,
        subject: form.subject,
        drop_invalid: form.leaveOutInvalid ?? true,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  });
  // No list verified under this id: an ordinary send.
  if (!row) return sendEmail(platform, userId, form);
  if (row.status === 'waiting') await startSendAfterVerification(platform, row.id);
  const current = (await findRow(platform.db, userId, storageId))!;
  const waiting = await toWaiting(platform.db, current);
  return {
    status: true as const,
    message:
      current.status === 'started'
        ? 'Your lists are verified: the email is on its way.'
        : current.status === 'failed'
          ? (current.error ?? 'The email could not be sent.')
          : 'Your lists are being verified. The email goes out by itself as soon as they are: you can leave this page.',
    sendId: current.send_id,
    scheduled: false,
    waiting,
  };
};

/** What `sendEmail` is given once the lists are verified: a delivery time gone by means now. */
const formToSend = (stored: unknown, timeZone: string): TSendEmailForm => {
  const form = ZSendEmailRequest.parse(stored);
  const isPast =
    isSendLater(form) &&
    (parseDeliveryTime(form.delivery, timeZone)?.getTime() ?? Number.POSITIVE_INFINITY) <= Date.now();
  return {
    ...form,
    storageId: undefined,
    ...(isPast ? { delivery: '', sendLater: false } : {}),
  };
};

const endRow = (db: Executor, id: number, change: { status: 'started' | 'failed'; send_id?: number; error?: string }) =>
  db
    .updateTable('sends_after_verification')
    .set({ ...change, updated_at: new Date() })
    .where('id', '=', id)
    .execute();

/** The user is told, in the tabs (UpsellStart) and by a notification, that the send went or why not. */
const tellUser = async (platform: TPlatform, row: TRow, outcome: { sendId: number } | { error: string }) => {
  const listIds = row.list_ids.map(Number);
  await publishToUser(platform.db, row.user_id, 'UpsellStart', {
    mailingListIds: listIds,
    storageId: row.storage_id,
    sendId: 'sendId' in outcome ? outcome.sendId : null,
    error: 'error' in outcome ? outcome.error : null,
  });
  await notifyUser(platform, {
    userId: row.user_id,
    title:
      'sendId' in outcome
        ? `Your lists are verified: “${row.subject}” is going out`
        : `“${row.subject}” was not sent after the verification`,
    body: 'sendId' in outcome ? 'Follow it on Send Email or in History.' : outcome.error,
    link: 'sendId' in outcome ? '/history' : '/send-email',
  });
};

/**
 * Starts a waiting send once every verification it waits for has ended (the resume job, and
 * `sendOrWait` when they had all ended already). Safe to run twice or at once: only one call
 * moves the row from `waiting`; the others find it moved (or still waiting) and leave it.
 */
export const startSendAfterVerification = async (platform: TPlatform, id: number) => {
  const claimed = await platform.db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('sends_after_verification')
      .selectAll()
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirst();
    if (!row) return null;
    if (row.status === 'starting' && Date.now() - row.updated_at.getTime() > STARTING_STALE_MS) {
      // Its start was interrupted: the send may exist. Never made twice: the user looks.
      const error = 'Sendwell stopped while this email was being started: look in History before you send it again.';
      await endRow(trx, row.id, { status: 'failed', error });
      return { row, stale: error };
    }
    if (row.status !== 'waiting') return null;
    const jobs = await verificationsOfSend(trx, row.user_id, row.storage_id);
    if (jobs.some((job) => !job.hasEnded)) return null;
    await trx
      .updateTable('sends_after_verification')
      .set({ status: 'starting', updated_at: new Date() })
      .where('id', '=', row.id)
      .execute();
    return { row, jobs, stale: null };
  });
  if (!claimed) return;
  const { row } = claimed;
  if (claimed.stale !== null) {
    await tellUser(platform, row, { error: claimed.stale });
    return;
  }
  try {
    if (row.drop_invalid) {
      const invalid = await invalidAddressesOf(
        platform.db,
        row.user_id,
        (claimed.jobs ?? []).map((job) => job.id),
      );
      for (const listId of new Set(invalid.map((item) => item.list_id))) {
        await unsubscribeFromList(
          platform,
          row.user_id,
          listId!,
          invalid.filter((item) => item.list_id === listId).map((item) => item.email),
          'app',
        );
      }
    }
    const form = formToSend(row.form, (await findUserProfile(platform.db, row.user_id)).time_zone);
    const sent = await sendEmail(platform, row.user_id, form);
    await endRow(platform.db, row.id, { status: 'started', send_id: sent.sendId });
    await tellUser(platform, row, { sendId: sent.sendId });
  } catch (error) {
    // What the user can act on (a list deleted meanwhile, the account gone, a plan changed)
    // ends it with the reason. Nothing is tried again: a send whose answer was lost could
    // exist already, and sending twice is worse than asking the user to send again.
    const reason =
      error instanceof ValidationError || error instanceof HttpError
        ? `The email was not sent: ${error.message}`
        : 'The email could not be sent after the verification. Send it again from Send Email.';
    await endRow(platform.db, row.id, { status: 'failed', error: reason });
    await tellUser(platform, row, { error: reason });
    if (!(error instanceof ValidationError || error instanceof HttpError)) throw error;
  }
};

/**
 * Registered with verification (`listVerificationEnded`): a list verified for a waiting send
 * queues that send's start, in the transaction that ends the verification. The start looks
 * at every verification of the send, so the last one to end is the one that lets it go.
 */
export const whenListVerificationEnded: TListVerificationEnded = async (platform, trx, ended) => {
  if (ended.storageId === null) return;
  await lockSendsOf(trx, ended.userId);
  const row = await findRow(trx, ended.userId, ended.storageId);
  if (row?.status !== 'waiting') return;
  await platform.queue.enqueue(startAfterVerificationJob, { id: row.id }, { executor: trx });
};

/** `GET /api/email/waiting-sends`: the user's sends still waiting (or starting), oldest first. */
export const listWaitingSends = async (platform: TPlatform, userId: number) => {
  const rows = await platform.db
    .selectFrom('sends_after_verification')
    .selectAll()
    .where('user_id', '=', userId)
    .where('status', 'in', ['waiting', 'starting'])
    .orderBy('id')
    .execute();
  return Promise.all(rows.map((row) => toWaiting(platform.db, row)));
};

/** `POST /api/email/waiting-sends/{storageId}/cancel`: nothing is sent; the verification goes on. */
export const cancelWaitingSend = async (platform: TPlatform, userId: number, storageId: string) => {
  const cancelled = await platform.db
    .updateTable('sends_after_verification')
    .set({ status: 'cancelled', updated_at: new Date() })
    .where('user_id', '=', userId)
    .where('storage_id', '=', storageId)
    .where('status', '=', 'waiting')
    .executeTakeFirst();
  if (cancelled.numUpdatedRows > 0n) return;
  const row = await findRow(platform.db, userId, storageId);
  if (!row) throw notFound('This email is not waiting for a verification.');
  throw new HttpError(409, 'This email is no longer waiting: it went out or was given up already.', 'SEND_STATE');
};

/**
 * The hourly cleanup (R30): rows that no longer wait are deleted after 30 days, and a start
 * interrupted long ago is ended (failed, the user told) even when no job comes back for it.
 */
export const cleanUpSendsAfterVerification = async (platform: TPlatform) => {
  const stale = await platform.db
    .selectFrom('sends_after_verification')
    .select('id')
    .where('status', '=', 'starting')
    .where('updated_at', '<', new Date(Date.now() - STARTING_STALE_MS))
    .execute();
  for (const row of stale) await startSendAfterVerification(platform, row.id);
  const deleted = await platform.db
    .deleteFrom('sends_after_verification')
    .where('status', 'in', ['started', 'failed', 'cancelled'])
    .where('updated_at', '<', new Date(Date.now() - KEPT_DAYS * 86_400_000))
    .executeTakeFirst();
  return { sendsAfterVerification: Number(deleted.numDeletedRows), interruptedStarts: stale.length };
};
