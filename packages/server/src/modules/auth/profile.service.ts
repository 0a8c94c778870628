import {
  EMAIL_CHANGE_TTL_HOURS,
  PROFILE_MESSAGES,
  type TProfile,
  type ZEmailChangeRequest,
  type ZPasswordChangeRequest,
  type ZProfileUpdate,
} from '@sendwell/contracts';
import type { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import { isUniqueViolation } from '../../platform/db';
import { fieldError, notFound } from '../../platform/errors';
import type { TSession } from '../../platform/http-security';
import { hashPassword, verifyPassword } from '../../platform/passwords';
import { publicUrl } from '../../platform/public-url';
import { announceSessionEnd } from '../../platform/realtime';
import { hashToken, randomToken } from '../../platform/tokens';
import * as authRepository from './auth.repository';
import { EMAIL_TAKEN_MESSAGE } from './auth.service';
import { sendEmailChangedNoticeJob, sendEmailChangeLinkJob } from './profile.jobs';
import * as repository from './profile.repository';

/**
 * The signed-in user's own settings (the Profile screen): name and time zone at once; a new
 * email only once a link mailed to it is opened; a new password only with the current one,
 * signing out every other session. The auth module owns `users`, `sessions` and these rows.
 */

const requireProfile = async (platform: TPlatform, userId: number) => {
  const row = await repository.findProfile(platform.db, userId);
  if (!row) throw notFound();
  return row;
};

const toProfile = (row: Awaited<ReturnType<typeof requireProfile>>): TProfile => ({
  name: row.name,
  email: row.email,
  time_zone: row.time_zone,
  pending_email: row.pending_email,
});

export const getProfile = async (platform: TPlatform, userId: number) =>
  toProfile(await requireProfile(platform, userId));

/** Name and time zone; every screen shows times in the new zone from the next read. */
export const updateProfile = async (platform: TPlatform, userId: number, update: z.output<typeof ZProfileUpdate>) => {
  await repository.updateProfile(platform.db, userId, {
    ...(update.name !== undefined ? { name: update.name } : {}),
    ...(update.time_zone !== undefined ? { time_zone: update.time_zone } : {}),
  });
  return getProfile(platform, userId);
};

/** The current password, checked at argon2's cost (the route's rate limit bounds the guesses). */
const requireCurrentPassword = async (passwordHash: string, password: string) => {
  if (!(await verifyPassword(passwordHash, password))) {
    throw fieldError('current_password', PROFILE_MESSAGES.currentPassword);
  }
};

/**
 * Asks for a new email: nothing changes yet. The change waits in `email_changes` and a job
 * mails its link to the new address (the token is made there, never stored or queued in clear).
 */
export const requestEmailChange = async (
  platform: TPlatform,
  userId: number,
  request: z.output<typeof ZEmailChangeRequest>,
) => {
  const row = await requireProfile(platform, userId);
  await requireCurrentPassword(row.password_hash, request.current_password);
  if (row.email.toLowerCase() === request.email) throw fieldError('email', PROFILE_MESSAGES.emailSame);
  if (await repository.isEmailTaken(platform.db, userId, request.email)) throw fieldError('email', EMAIL_TAKEN_MESSAGE);
  await platform.db.transaction().execute(async (trx) => {
    const change = await repository.insertEmailChange(trx, {
      userId,
      newEmail: request.email,
      expiresAt: new Date(Date.now() + EMAIL_CHANGE_TTL_HOURS * 3_600_000),
    });
    await platform.queue.enqueue(sendEmailChangeLinkJob, { changeId: change.id }, { executor: trx });
  });
  return getProfile(platform, userId);
};

/** The job's work: a link for the change, mailed to the new address. Run again, it mails a new link (the last works). */
export const sendEmailChangeLink = async (platform: TPlatform, changeId: number) => {
  const token = randomToken();
  const change = await repository.setEmailChangeToken(platform.db, changeId, hashToken(token));
  if (!change) return;
  const link = `${publicUrl(platform)}/settings/profile/confirm-email/${token}`;
  await platform.mailer.send({
    to: change.new_email,
    subject: 'Confirm your new Sendwell email',
    text: `Hello,\n\nSomeone (we hope you) asked to use this address for their Sendwell account.\nOpen this link within ${EMAIL_CHANGE_TTL_HOURS} hours to confirm it:\n\n${link}\n\nUntil then the account keeps its current email. If it was not you, ignore this message.\n`,
  });
};

/** The link is opened: the new email takes effect, every other waiting change is spent, the old address is told. */
export const confirmEmailChange = async (platform: TPlatform, token: string) =>
  platform.db
    .transaction()
    .execute(async (trx) => {
      const change = await repository.findUsableEmailChangeForUpdate(trx, hashToken(token));
      if (!change) throw fieldError('token', PROFILE_MESSAGES.emailLink);
      if (await repository.isEmailTaken(trx, change.user_id, change.new_email)) {
        throw fieldError('token', EMAIL_TAKEN_MESSAGE);
      }
      await repository.setEmail(trx, change.user_id, change.new_email);
      await repository.spendEmailChanges(trx, change.user_id);
      await platform.queue.enqueue(
        sendEmailChangedNoticeJob,
        { userId: change.user_id, previousEmail: change.old_email },
        { executor: trx },
      );
      return change.new_email;
    })
    .catch((error: unknown) => {
      // Taken by a sign-up between the check and the update: the index decided.
      if (isUniqueViolation(error, 'users_email_key')) throw fieldError('token', EMAIL_TAKEN_MESSAGE);
      throw error;
    });

/** Tells the previous address its account moved, so a change its owner did not make is seen. */
export const sendEmailChangedNotice = async (platform: TPlatform, userId: number, previousEmail: string) => {
  const row = await repository.findProfile(platform.db, userId);
  if (!row) return;
  await platform.mailer.send({
    to: previousEmail,
    subject: 'Your Sendwell email was changed',
    text: `Hello ${row.name},\n\nYour Sendwell account's email is now ${row.email}; sign in with it from now on.\nIf you did not change it, reset your password at ${publicUrl(platform)}/forgot-password and contact us.\n`,
  });
};

/**
 * A new password, given the current one. Every other session of the user ends (their tabs
 * are closed through `announceSessionEnd`); the one that changed it stays signed in. Open
 * reset links are spent.
 */
export const changePassword = async (
  platform: TPlatform,
  session: TSession,
  request: z.output<typeof ZPasswordChangeRequest>,
) => {
  const row = await requireProfile(platform, session.userId);
  await requireCurrentPassword(row.password_hash, request.current_password);
  if (await verifyPassword(row.password_hash, request.password)) {
    throw fieldError('password', PROFILE_MESSAGES.passwordSame);
  }
  const passwordHash = await hashPassword(request.password);
  const ended = await platform.db.transaction().execute(async (trx) => {
    await authRepository.updatePasswordHash(trx, session.userId, passwordHash);
    await authRepository.markPasswordResetsUsed(trx, session.userId);
    const sessions = await repository.deleteOtherSessions(trx, session.userId, Buffer.from(session.id, 'hex'));
    for (const other of sessions) await announceSessionEnd(trx, other.id_hash.toString('hex'));
    return sessions;
  });
  // Other processes hear it at commit; this one must not wait for its own notification.
  for (const other of ended) platform.sessionCache.evict(other.id_hash.toString('hex'));
  return ended.length;
};
