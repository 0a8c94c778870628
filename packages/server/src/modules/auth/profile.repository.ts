import type { Executor } from '../../platform/db';
import { hasRows, isAddress } from '../../platform/queries';
import { isUsableLink, spendLinks } from './auth.repository';

/** The profile as the screen shows it, with the newest new email still waiting for its link. */
export const findProfile = (db: Executor, userId: number) =>
  db
    .selectFrom('users')
    .select((eb) => [
      'users.name',
      'users.email',
      'users.time_zone',
      'users.password_hash',
      eb
        .selectFrom('email_changes')
        .select('new_email')
        .whereRef('email_changes.user_id', '=', 'users.id')
        .where(isUsableLink('email_changes'))
        .orderBy('email_changes.id', 'desc')
        .limit(1)
        .as('pending_email'),
    ])
    .where('users.id', '=', userId)
    .executeTakeFirst();

export const updateProfile = (db: Executor, userId: number, changes: { name?: string; time_zone?: string }) =>
  db
    .updateTable('users')
    .set({ ...changes, updated_at: new Date() })
    .where('id', '=', userId)
    .executeTakeFirst();

/** Another user holds this email (any case). */
export const isEmailTaken = (db: Executor, userId: number, email: string) =>
  hasRows(db.selectFrom('users').where(isAddress(email)).where('id', '<>', userId));

/** A new email for a user; earlier ones still waiting are spent (only the newest link works). */
export const insertEmailChange = async (
  db: Executor,
  change: { userId: number; newEmail: string; oldEmail: string; expiresAt: Date },
) => {
  await spendEmailChanges(db, change.userId);
  return db
    .insertInto('email_changes')
    .values({
      user_id: change.userId,
      new_email: change.newEmail,
      old_email: change.oldEmail,
      expires_at: change.expiresAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
};

/** Email changes with the user each belongs to. */
const changesWithUser = (db: Executor) =>
  db.selectFrom('email_changes').innerJoin('users', 'users.id', 'email_changes.user_id');

/** A change still waiting for its link, with the name the notice to the old address greets. */
export const findWaitingEmailChange = (db: Executor, changeId: number) =>
  changesWithUser(db)
    .select(['email_changes.new_email', 'email_changes.old_email', 'email_changes.expires_at', 'users.name'])
    .where('email_changes.id', '=', changeId)
    .where(isUsableLink('email_changes'))
    .executeTakeFirst();

/** The link's token for a change still waiting; answers the change when there was one to give it to. */
export const setEmailChangeToken = (db: Executor, changeId: number, tokenHash: Buffer) =>
  db
    .updateTable('email_changes')
    .set({ token_hash: tokenHash, updated_at: new Date() })
    .where('id', '=', changeId)
    .where(isUsableLink('email_changes'))
    .returning(['user_id', 'new_email', 'expires_at'])
    .executeTakeFirst();

/** Locks a usable change by its link, so one link cannot be used twice at once. */
export const findUsableEmailChangeForUpdate = (db: Executor, tokenHash: Buffer) =>
  changesWithUser(db)
    .select(['email_changes.id', 'email_changes.user_id', 'email_changes.new_email', 'users.email as old_email'])
    .where('email_changes.token_hash', '=', tokenHash)
    .where(isUsableLink('email_changes'))
    .forUpdate()
    .executeTakeFirst();

/**
 * Spends every change of the user still waiting for its link: its link then answers as used.
 * A newer request, a confirmed change, a password change or reset, "sign out everywhere" and
 * Cancel all call it (R41). Answers how many were waiting.
 */
export const spendEmailChanges = async (db: Executor, userId: number) =>
  (await spendLinks(db, 'email_changes').where('user_id', '=', userId).executeTakeFirst()).numUpdatedRows;

/** The change its link confirmed: the address it moves from, as it is now. */
export const markEmailChangeConfirmed = (db: Executor, changeId: number, oldEmail: string) =>
  db
    .updateTable('email_changes')
    .set({ confirmed_at: new Date(), old_email: oldEmail, updated_at: new Date() })
    .where('id', '=', changeId)
    .executeTakeFirst();

/**
 * A change and its user's email, both locked for an undo from the old address (the change's
 * row first, then the user's, the order a confirmation takes them in). Two undos of one
 * user's changes take turns on the user's row.
 */
export const lockEmailChangeForUndo = (db: Executor, changeId: number) =>
  changesWithUser(db)
    .select([
      'email_changes.user_id',
      'email_changes.old_email',
      'email_changes.expires_at',
      'email_changes.used_at',
      'email_changes.confirmed_at',
      'email_changes.reverted_at',
      'users.email as current_email',
    ])
    .where('email_changes.id', '=', changeId)
    .forUpdate()
    .executeTakeFirst();

/** Spends one waiting change (the old address cancelled it). */
export const spendEmailChange = (db: Executor, changeId: number) =>
  spendLinks(db, 'email_changes').where('id', '=', changeId).executeTakeFirst();

/**
 * An undo put the email back as it was before `changeId`: that change and every later
 * confirmed one of the user are marked, so no later change's link (which went to an address
 * the change's author reads) can take the account back again. Earlier changes' links still work.
 */
export const markEmailChangesReverted = (db: Executor, userId: number, changeId: number) =>
  db
    .updateTable('email_changes')
    .set({ reverted_at: new Date(), updated_at: new Date() })
    .where('user_id', '=', userId)
    .where('id', '>=', changeId)
    .where('confirmed_at', 'is not', null)
    .where('reverted_at', 'is', null)
    .execute();

export const setEmail = (db: Executor, userId: number, email: string) =>
  db.updateTable('users').set({ email, updated_at: new Date() }).where('id', '=', userId).executeTakeFirst();

/** Ends every session of a user but one (the one changing the password); answers the ended ones. */
export const deleteOtherSessions = (db: Executor, userId: number, keepIdHash: Buffer) =>
  db
    .deleteFrom('sessions')
    .where('user_id', '=', userId)
    .where('id_hash', '<>', keepIdHash)
    .returning('id_hash')
    .execute();

/** Changes a day past their link's life, and confirmed ones a day past the week their undo link works. */
export const deleteOldEmailChanges = (db: Executor, undoDays: number) =>
  db
    .deleteFrom('email_changes')
    .where('expires_at', '<', new Date(Date.now() - 86_400_000))
    .where((eb) =>
      eb.or([
        eb('confirmed_at', 'is', null),
        eb('confirmed_at', '<', new Date(Date.now() - (undoDays + 1) * 86_400_000)),
      ]),
    )
    .executeTakeFirst();
