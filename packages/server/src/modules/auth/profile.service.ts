import {
  EMAIL_CHANGE_TTL_HOURS,
  EMAIL_CHANGE_UNDO_DAYS,
  PROFILE_MESSAGES,
  type TEmailUndoOutcome,
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
import { hashToken, hmac, randomToken, safeEqual } from '../../platform/tokens';
import { sendPasswordResetJob } from './auth.jobs';
import * as authRepository from './auth.repository';
import { EMAIL_TAKEN_MESSAGE } from './auth.service';
import { sendEmailChangedNoticeJob, sendEmailChangeLinkJob, sendEmailChangeRequestedNoticeJob } from './profile.jobs';
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
 * The old address's link to undo a change: `<change id>.<HMAC of it under the signing key>`.
 * Both notices to the old address (asked for, confirmed) carry the same link, a job run twice
 * mails the same one, and the table holds nothing a reader could open it with.
 *
 * Why the undo needs no password: the one who asked for the change knew the password, so a
 * password proves nothing here, and an attacker who holds it has usually changed it by the
 * time the owner reads the notice. What proves ownership is reading the old mailbox, which the
 * account's email was until now (anyone holding it could already take the account through
 * "forgot password"). An attacker with the password can sign in, ask for a change and confirm
 * it from their own mailbox within seconds, so a link that only cancelled a waiting change
 * would come too late: within `EMAIL_CHANGE_UNDO_DAYS` of the confirmation the same link puts
 * the old email back, ends every session, replaces the password with one nobody knows and
 * mails a reset link to the old address, so the password the attacker holds opens nothing. What
 * the attacker cannot do: forge the link (it needs the server's key), or take the account back
 * with a later change's link (an undo marks every later change as undone, below). What it costs
 * the honest user: whoever reads the old mailbox can undo their move for a week, as they could
 * have taken the account with a reset link the day before. The page asks for a click, so a
 * mail scanner that opens links undoes nothing.
 */
const UNDO_PURPOSE = 'email-change-undo';
const undoTokenOf = (platform: TPlatform, changeId: number) =>
  `${changeId}.${hmac(platform.secrets.signingKey, `${UNDO_PURPOSE}:${changeId}`)}`;
const changeIdOfUndoToken = (platform: TPlatform, token: string): number | null => {
  const match = /^(\d{1,15})\.[\w-]{43}$/.exec(token);
  if (!match) return null;
  const changeId = Number(match[1]);
  return safeEqual(token, undoTokenOf(platform, changeId)) ? changeId : null;
};
const undoLinkOf = (platform: TPlatform, changeId: number) =>
  `${publicUrl(platform)}/settings/profile/undo-email/${undoTokenOf(platform, changeId)}`;

/**
 * Asks for a new email: nothing changes yet. The change waits in `email_changes`; one job mails
 * its link to the new address (the token is made there, never stored or queued in clear),
 * another tells the old address how to undo it.
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
      oldEmail: row.email,
      expiresAt: new Date(Date.now() + EMAIL_CHANGE_TTL_HOURS * 3_600_000),
    });
    await platform.queue.enqueue(sendEmailChangeLinkJob, { changeId: change.id }, { executor: trx });
    await platform.queue.enqueue(sendEmailChangeRequestedNoticeJob, { changeId: change.id }, { executor: trx });
  });
  return getProfile(platform, userId);
};

/**
 * Tells the old address a change was asked for and how to stop it. Not when the change is no
 * longer waiting: cancelled, it needs no undo; confirmed, the changed notice carries the link.
 */
export const sendEmailChangeRequestedNotice = async (platform: TPlatform, changeId: number) => {
  const change = await repository.findWaitingEmailChange(platform.db, changeId);
  if (!change?.old_email) return;
  await platform.mailer.send({
    to: change.old_email,
    subject: 'Someone asked to change your Sendwell email',
    text: `Hello ${change.name},\n\nSomeone signed in to your Sendwell account and asked to change its email from ${change.old_email} to ${change.new_email}.\nNothing changes until the link we sent to ${change.new_email} is opened (it works for ${EMAIL_CHANGE_TTL_HOURS} hours).\n\nIf it was you, there is nothing to do.\n\nIf it was not you, open this link and press the button to undo it. No password is needed (whoever asked knows yours). It cancels the change, or, if the change has already happened, puts ${change.old_email} back for up to ${EMAIL_CHANGE_UNDO_DAYS} days, signs every device out and sends you a link to choose a new password:\n\n${undoLinkOf(platform, changeId)}\n\nYou can also sign in, press Cancel beside the waiting change on your Profile, and change your password there.\n`,
  });
};

/** The Profile's Cancel: the waiting change is spent, its link answers as used. */
export const cancelEmailChange = async (platform: TPlatform, userId: number) => {
  const { pending_email: pendingEmail } = await getProfile(platform, userId);
  const spent = await repository.spendEmailChanges(platform.db, userId);
  return {
    message:
      pendingEmail !== null && spent > 0n
        ? PROFILE_MESSAGES.emailChangeCancelled(pendingEmail)
        : PROFILE_MESSAGES.noEmailChangeWaiting,
    profile: await getProfile(platform, userId),
  };
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
      await repository.markEmailChangeConfirmed(trx, change.id, change.old_email);
      await platform.queue.enqueue(
        sendEmailChangedNoticeJob,
        { userId: change.user_id, previousEmail: change.old_email, changeId: change.id },
        { executor: trx },
      );
      return change.new_email;
    })
    .catch((error: unknown) => {
      // Taken by a sign-up between the check and the update: the index decided.
      if (isUniqueViolation(error, 'users_email_key')) throw fieldError('token', EMAIL_TAKEN_MESSAGE);
      throw error;
    });

/**
 * Tells the previous address its account moved, with the link that puts it back (a reset
 * link to the old address would find no account any more). Jobs queued before the link
 * existed carry no change id and say to contact us.
 */
export const sendEmailChangedNotice = async (
  platform: TPlatform,
  userId: number,
  previousEmail: string,
  changeId?: number,
) => {
  const row = await repository.findProfile(platform.db, userId);
  if (!row) return;
  const undo =
    changeId === undefined
      ? 'If you did not change it, contact us.'
      : `If you did not change it, open this link within ${EMAIL_CHANGE_UNDO_DAYS} days and press the button: it puts ${previousEmail} back, signs every device out and sends you a link to choose a new password.\n\n${undoLinkOf(platform, changeId)}`;
  await platform.mailer.send({
    to: previousEmail,
    subject: 'Your Sendwell email was changed',
    text: `Hello ${row.name},\n\nYour Sendwell account's email is now ${row.email}; sign in with it from now on.\n${undo}\n`,
  });
};

type TUndoAnswer = { message: string; email: string; outcome: TEmailUndoOutcome };

/**
 * The old address's link (see `undoTokenOf` for why it needs no password): a waiting change
 * is cancelled; a confirmed one, within `EMAIL_CHANGE_UNDO_DAYS`, is undone: the old email
 * back, every later change marked undone, waiting changes and reset links spent, every
 * session ended, the password replaced by one nobody knows, and a reset link mailed to the
 * old address in the same transaction.
 */
export const undoEmailChange = async (platform: TPlatform, token: string): Promise<TUndoAnswer> => {
  const changeId = changeIdOfUndoToken(platform, token);
  if (changeId === null) throw fieldError('token', PROFILE_MESSAGES.undoLink);
  // Made before the transaction: argon2 takes its time, and nobody ever learns this password.
  const unknownPasswordHash = await hashPassword(randomToken());
  let putBack = '';
  const { answer, ended } = await platform.db
    .transaction()
    .execute(async (trx) => {
      const change = await repository.lockEmailChangeForUndo(trx, changeId);
      if (!change) throw fieldError('token', PROFILE_MESSAGES.undoLink);
      const current = change.current_email;
      const just = (outcome: TEmailUndoOutcome, message: string) => ({
        answer: { message, email: current, outcome },
        ended: [],
      });
      if (change.confirmed_at === null) {
        const isWaiting = change.used_at === null && change.expires_at > new Date();
        if (!isWaiting) return just('nothing-waiting', PROFILE_MESSAGES.undoNothingWaiting(current));
        await repository.spendEmailChange(trx, changeId);
        return just('cancelled', PROFILE_MESSAGES.undoCancelled(current));
      }
      if (change.reverted_at !== null) return just('already-reverted', PROFILE_MESSAGES.undoAlreadyReverted(current));
      const undoUntil = change.confirmed_at.getTime() + EMAIL_CHANGE_UNDO_DAYS * 86_400_000;
      if (change.old_email === null || undoUntil < Date.now()) throw fieldError('token', PROFILE_MESSAGES.undoTooLate);
      const oldEmail = change.old_email;
      putBack = oldEmail;
      if (await repository.isEmailTaken(trx, change.user_id, oldEmail)) {
        throw fieldError('token', PROFILE_MESSAGES.undoEmailTaken(oldEmail));
      }
      await repository.setEmail(trx, change.user_id, oldEmail);
      await repository.markEmailChangesReverted(trx, change.user_id, changeId);
      await repository.spendEmailChanges(trx, change.user_id);
      await authRepository.updatePasswordHash(trx, change.user_id, unknownPasswordHash);
      await authRepository.markPasswordResetsUsed(trx, change.user_id);
      const sessions = await authRepository.deleteUserSessions(trx, change.user_id);
      for (const session of sessions) await announceSessionEnd(trx, session.id_hash.toString('hex'));
      await platform.queue.enqueue(sendPasswordResetJob, { email: oldEmail }, { executor: trx });
      return {
        answer: { message: PROFILE_MESSAGES.undoReverted(oldEmail), email: oldEmail, outcome: 'reverted' as const },
        ended: sessions,
      };
    })
    .catch((error: unknown) => {
      // Taken by a sign-up between the check and the update: the index decided.
      if (isUniqueViolation(error, 'users_email_key'))
        throw fieldError('token', PROFILE_MESSAGES.undoEmailTaken(putBack));
      throw error;
    });
  for (const session of ended) platform.sessionCache.evict(session.id_hash.toString('hex'));
  return answer;
};

/**
 * A new password, given the current one. Every other session of the user ends (their tabs
 * are closed through `announceSessionEnd`); the one that changed it stays signed in. Open
 * reset links and waiting email changes are spent.
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
    // A change asked for with the old password must not outlive it (R41).
    await repository.spendEmailChanges(trx, session.userId);
    const sessions = await repository.deleteOtherSessions(trx, session.userId, Buffer.from(session.id, 'hex'));
    for (const other of sessions) await announceSessionEnd(trx, other.id_hash.toString('hex'));
    return sessions;
  });
  // Other processes hear it at commit; this one must not wait for its own notification.
  for (const other of ended) platform.sessionCache.evict(other.id_hash.toString('hex'));
  return ended.length;
};

/**
 * "Sign out everywhere": every session of the user ends, this one too, and what a thief could
 * still use without a session is spent with them: reset links and waiting email changes
 * (R41). The old address's undo links of confirmed changes stay: they are the owner's.
 */
export const signOutEverywhere = async (platform: TPlatform, userId: number) => {
  const ended = await platform.db.transaction().execute(async (trx) => {
    await authRepository.markPasswordResetsUsed(trx, userId);
    await repository.spendEmailChanges(trx, userId);
    const sessions = await authRepository.deleteUserSessions(trx, userId);
    for (const session of sessions) await announceSessionEnd(trx, session.id_hash.toString('hex'));
    return sessions;
  });
  for (const session of ended) platform.sessionCache.evict(session.id_hash.toString('hex'));
};
