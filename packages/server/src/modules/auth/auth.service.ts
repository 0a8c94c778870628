import {
  DEFAULT_FREE_PLAN_ID,
  DEFAULT_TIME_ZONE,
  EMAIL_CHANGE_UNDO_DAYS,
  REGISTRATION_MESSAGES,
  type TOperatorUser,
  type TUserInformation,
  type ZOperatorUserQuery,
} from '@sendwell/contracts';
import { sql } from 'kysely';
import type { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import { type Executor, isUniqueViolation } from '../../platform/db';
import { fieldError, HttpError, notFound } from '../../platform/errors';
import { tooManyRequests } from '../../platform/http-security';
import { paginate } from '../../platform/paging';
import { hashPassword, verifyPassword } from '../../platform/passwords';
import { publicUrl } from '../../platform/public-url';
import { consumeRateLimit, resetRateLimit } from '../../platform/rate-limit';
import { announceSessionEnd } from '../../platform/realtime';
import { hashToken, randomToken } from '../../platform/tokens';
import { changeCredits, toCreditBalance } from '../credits/credits.service';
import { findPlan } from '../plans/plans.service';
import { sendPasswordResetJob } from './auth.jobs';
import * as repository from './auth.repository';
import { deleteOldEmailChanges, spendEmailChanges } from './profile.repository';

const RESET_LINK_TTL_MS = 60 * 60_000;

export const FORGOT_PASSWORD_MESSAGE =
  'If an account exists for that email, we have sent a link to reset its password. The link works for one hour.';
export const EMAIL_TAKEN_MESSAGE = 'The email has already been taken.';
export const INVALID_CREDENTIALS_MESSAGE = 'These credentials do not match our records.';
export const ACCOUNT_DISABLED_MESSAGE = 'This account is disabled. Please contact support.';

export const getUserInformation = async (platform: TPlatform, userId: number): Promise<TUserInformation> => {
  const row = await repository.findUserInformation(platform.db, userId);
  if (!row) throw notFound();
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    free: row.plan_is_free,
    plan: { id: row.plan_id, name: row.plan_name, isFree: row.plan_is_free },
    time_zone: row.time_zone,
    role: row.role,
    unread_tickets: 0,
    credit: toCreditBalance({ balance: row.balance ?? 0, used: row.used ?? 0 }),
    billing: platform.config.isBillingOn,
    // What other modules add (the tickets module: unread answers).
    ...Object.assign(
      {},
      ...(await Promise.all(platform.hooks.userInformation.map((part) => part(platform.db, userId)))),
    ),
  };
};

/**
 * Checks a sign-in attempt against two limits: per IP (one machine guessing many
 * accounts) and per email (many machines guessing one account). Both count before the
 * password is checked, so a limited attempt costs no argon2 work.
 */
export const authenticate = async (
  platform: TPlatform,
  { email, password, ip }: { email: string; password: string; ip: string },
): Promise<number> => {
  const { config } = platform;
  const emailKey = `login:email:${email.toLowerCase()}`;
  for (const [key, limit] of [
    [`login:ip:${ip}`, config.loginLimitPerIp],
    [emailKey, config.loginLimitPerEmail],
  ] as const) {
    const result = await consumeRateLimit(platform.db, key, limit, config.loginLimitWindowSeconds);
    if (!result.isAllowed) throw tooManyRequests(result.retryAfterSeconds);
  }
  const user = await repository.findUserByEmail(platform.db, email);
  const isValid = await verifyPassword(user?.password_hash, password);
  if (!user || !isValid) throw new HttpError(401, INVALID_CREDENTIALS_MESSAGE, 'INVALID_CREDENTIALS');
  // Told only to whoever knows the password: a disabled account says so.
  if (user.disabled_at) throw new HttpError(403, ACCOUNT_DISABLED_MESSAGE, 'ACCOUNT_DISABLED');
  await resetRateLimit(platform.db, emailKey);
  return user.id;
};

/** Ends a session everywhere: the row, its open tabs, and every web process's cache. */
export const endSession = async (platform: TPlatform, sessionId: string) => {
  await platform.db.transaction().execute(async (trx) => {
    await repository.deleteSession(trx, Buffer.from(sessionId, 'hex'));
    await announceSessionEnd(trx, sessionId);
  });
  // Other processes hear it at commit; this one must not wait for its own notification.
  platform.sessionCache.evict(sessionId);
};

type TNewUser = {
  name: string;
  email: string;
  password: string;
  planId?: number;
  referredBy?: string;
  /** A checked IANA name (contracts' `ZTimeZone`); the column's default otherwise. */
  timeZone?: string | undefined;
};

/**
 * Creates an account with its plan's trial credits. `beforeCommit` runs inside the same
 * transaction after the user row exists (registration takes payment there), so a failure
 * in it leaves no user behind.
 */
export const createUser = async (
  platform: TPlatform,
  user: TNewUser,
  beforeCommit?: (trx: Executor, created: { id: number; name: string; email: string }) => Promise<void>,
) => {
  const existing = await repository.findUserByEmail(platform.db, user.email);
  if (existing) throw fieldError('email', EMAIL_TAKEN_MESSAGE);
  const passwordHash = await hashPassword(user.password);
  const planId = user.planId ?? DEFAULT_FREE_PLAN_ID;
  return platform.db.transaction().execute(async (trx) => {
    const plan = await findPlan(trx, planId);
    if (!plan) throw fieldError('package_id', REGISTRATION_MESSAGES.package);
    const created = await repository
      .insertUser(trx, {
        name: user.name,
        email: user.email.toLowerCase(),
        passwordHash,
        planId,
        referredBy: user.referredBy,
        ...(user.timeZone ? { timeZone: user.timeZone } : {}),
      })
      .catch((error: unknown) => {
        // Two sign-ups with one email at the same moment: the index decides, the loser hears why.
        if (isUniqueViolation(error, 'users_email_key')) throw fieldError('email', EMAIL_TAKEN_MESSAGE);
        throw error;
      });
    // A new user starts with the plan's trial credits, in the same transaction.
    if (plan.trial_credits > 0) {
      await changeCredits(trx, {
        userId: created.id,
        type: 'trial',
        quantity: plan.trial_credits,
        reference: plan.name,
      });
    }
    await beforeCommit?.(trx, created);
    return created;
  });
};

/**
 * Queues the reset mail (see `sendPasswordResetJob`). The same one insert for every email, so
 * the form's answer reveals nothing, not even through its timing.
 */
export const requestPasswordReset = async (platform: TPlatform, email: string) => {
  await platform.queue.enqueue(sendPasswordResetJob, { email });
};

/** The job's work: a one-hour link for the account with that email, if there is one. */
export const sendPasswordReset = async (platform: TPlatform, email: string) => {
  const user = await repository.findUserByEmail(platform.db, email);
  if (!user) return;
  const token = randomToken();
  await repository.insertPasswordReset(platform.db, {
    userId: user.id,
    tokenHash: hashToken(token),
    expiresAt: new Date(Date.now() + RESET_LINK_TTL_MS),
  });
  const link = `${publicUrl(platform)}/reset-password/${token}`;
  await platform.mailer.send({
    to: user.email,
    subject: 'Reset your Sendwell password',
    text: `Hello ${user.name},\n\nSomeone (we hope you) asked to reset the password of your Sendwell account.\nOpen this link within one hour to choose a new one:\n\n${link}\n\nIf it was not you, ignore this message; your password stays as it is.\n`,
  });
};

export const resetPassword = async (platform: TPlatform, token: string, password: string) => {
  const passwordHash = await hashPassword(password);
  const endedSessions = await platform.db.transaction().execute(async (trx) => {
    const reset = await repository.findUsablePasswordResetForUpdate(trx, hashToken(token));
    if (!reset) {
      throw fieldError('token', 'This password reset link is invalid or has expired. Please request a new one.');
    }
    await repository.updatePasswordHash(trx, reset.user_id, passwordHash);
    await repository.markPasswordResetsUsed(trx, reset.user_id);
    // A change of email asked for with the old password must not outlive it (R41).
    await spendEmailChanges(trx, reset.user_id);
    // A new password signs out every device that knew the old one.
    const sessions = await repository.deleteUserSessions(trx, reset.user_id);
    for (const session of sessions) await announceSessionEnd(trx, session.id_hash.toString('hex'));
    return sessions;
  });
  for (const session of endedSessions) platform.sessionCache.evict(session.id_hash.toString('hex'));
};

/** Auth's part of the hourly cleanup: expired sessions and spent reset links. */
export const cleanUpAuth = async (platform: TPlatform) => {
  const [sessions, resets, emailChanges] = await Promise.all([
    repository.deleteExpiredSessions(platform.db),
    repository.deleteOldPasswordResets(platform.db),
    deleteOldEmailChanges(platform.db, EMAIL_CHANGE_UNDO_DAYS),
  ]);
  return {
    sessions: Number(sessions.numDeletedRows),
    passwordResets: Number(resets.numDeletedRows),
    emailChanges: Number(emailChanges.numDeletedRows),
  };
};

/** Ends every session of a user at once (disabled by an operator): rows, tabs, caches. */
export const endUserSessions = async (platform: TPlatform, executor: Executor, userId: number) => {
  const sessions = await repository.deleteUserSessions(executor, userId);
  for (const session of sessions) await announceSessionEnd(executor, session.id_hash.toString('hex'));
  return () => {
    for (const session of sessions) platform.sessionCache.evict(session.id_hash.toString('hex'));
  };
};

export { findOperator, setDisabled, setRole } from './auth.repository';

/** The id of the user with this email (any case), or null. */
export const findUserIdByEmail = async (db: Executor, email: string) =>
  (await repository.findUserByEmail(db, email))?.id ?? null;

type TOperatorUserRow = Awaited<
  ReturnType<ReturnType<typeof repository.selectUsersForOperator>['executeTakeFirstOrThrow']>
>;

const toOperatorUser = (row: TOperatorUserRow): TOperatorUser => ({
  id: row.id,
  email: row.email,
  name: row.name,
  role: row.role,
  disabled: row.disabled_at !== null,
  plan: { id: row.plan_id, name: row.plan_name },
  credit: toCreditBalance({ balance: row.balance ?? 0, used: row.used ?? 0 }),
  created_at: row.created_at.toISOString(),
});

/** The operator area's user table: search by email or name, sort, page. */
export const listUsersForOperator = async (platform: TPlatform, query: z.output<typeof ZOperatorUserQuery>) => {
  const page = await paginate(repository.selectUsersForOperator(platform.db), query, {
    sortColumns: { created_at: 'users.created_at', email: sql`lower(users.email)`, name: 'users.name' },
    searchColumns: ['users.email', 'users.name'],
    tieBreaker: 'users.id',
  });
  return { data: page.data.map(toOperatorUser), meta: page.meta };
};

export const findUserForOperator = async (db: Executor, userId: number) => {
  const row = await repository.selectUsersForOperator(db).where('users.id', '=', userId).executeTakeFirst();
  if (!row) throw notFound('This user does not exist.');
  return toOperatorUser(row);
};

/** What other modules read of a user: name, email and time zone (the From default, dates). */
export const findUserProfile = async (db: Executor, userId: number) => {
  const row = await db
    .selectFrom('users')
    .select(['id', 'name', 'email', 'time_zone'])
    .where('id', '=', userId)
    .executeTakeFirst();
  if (!row) throw notFound();
  return row;
};

/** The user's time zone (dates in filters and on screens are the user's). */
export const timeZoneOf = async (db: Executor, userId: number) =>
  (await db.selectFrom('users').select('time_zone').where('id', '=', userId).executeTakeFirst())?.time_zone ??
  DEFAULT_TIME_ZONE;

/** Whether the user exists and may act (not disabled by an operator): an API key of a disabled user opens nothing. */
export const isUserEnabled = async (db: Executor, userId: number) => {
  const row = await db.selectFrom('users').select('disabled_at').where('id', '=', userId).executeTakeFirst();
  return row !== undefined && row.disabled_at === null;
};
