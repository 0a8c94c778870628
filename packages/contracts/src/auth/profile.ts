import { z } from 'zod';
import { ZTimeZone } from '../time/zones';
import { ZNewPassword } from './auth';

/**
 * Profile: the signed-in user's own name, email, password and time zone (the issue's
 * "Account page"; in Sendwell's words an *account* is a sending account, so the screen and its
 * calls say profile).
 */
export const PROFILE_MESSAGES = {
  saved: 'Your profile has been saved.',
  emailLinkSent: (email: string) =>
    `We sent a link to ${email}. Your email changes when you open it; until then you sign in with your current one.`,
  emailChanged: (email: string) => `Your email is now ${email}.`,
  emailSame: 'This is your email already.',
  emailLink: 'This link is invalid, used or more than 24 hours old. Ask for a new one on your Profile.',
  currentPassword: 'The current password is not correct.',
  passwordChanged: 'Your password has been changed. Every other device was signed out.',
  passwordSame: 'Choose a password other than your current one.',
  emailChangeCancelled: (email: string) => `The change to ${email} is cancelled; its link no longer works.`,
  noEmailChangeWaiting: 'No change of email is waiting.',
  signedOutEverywhere:
    'Every device, this one included, was signed out. Links we mailed to reset your password or change your email no longer work.',
  /** The old address's undo link, by what it found. */
  undoCancelled: (email: string) => `The change is cancelled. Your email stays ${email}.`,
  undoNothingWaiting: (email: string) => `That change did not happen and can no longer happen. Your email is ${email}.`,
  undoReverted: (email: string) =>
    `Your email is ${email} again and every device was signed out. Choose a new password now: whoever changed the email may know the old one.`,
  undoAlreadyReverted: (email: string) => `This change was already undone. Your email is ${email}.`,
  undoTooLate: 'This change is too old to undo here. Please contact us.',
  undoEmailTaken: (email: string) =>
    `Another account uses ${email} now, so it cannot be put back here. Please contact us.`,
  undoLink: 'This link is invalid. Open the link from our latest message about your email.',
} as const;

/** How long a link to confirm a new email works. */
export const EMAIL_CHANGE_TTL_HOURS = 24;

/**
 * How long after a change is confirmed the old address's link can still put the old email
 * back (a change its owner did not make is undone from the mailbox the attacker cannot read).
 */
export const EMAIL_CHANGE_UNDO_DAYS = 7;

/** A user's name, as registration takes it. */
export const ZProfileName = z
  .string()
  .trim()
  .min(1, { message: 'The full name field is required.' })
  .max(200, { message: 'The name may have at most 200 characters.' });

const requiredEmail = z
  .string()
  .trim()
  .toLowerCase()
  .min(1, { message: 'The email field is required.' })
  .max(320)
  .pipe(z.email({ message: 'Please enter a valid email address.' }));

const currentPassword = z.string().min(1, { message: 'Enter your current password.' }).max(1024);

export const ZProfile = z.object({
  name: z.string(),
  email: z.string(),
  time_zone: z.string(),
  /** A new email waiting for its link to be opened, or null. */
  pending_email: z.string().nullable(),
});
export type TProfile = z.infer<typeof ZProfile>;

/** Name and time zone: either or both. */
export const ZProfileUpdate = z
  .object({ name: ZProfileName.optional(), time_zone: ZTimeZone.optional() })
  .refine((update) => update.name !== undefined || update.time_zone !== undefined, {
    message: 'Nothing to change.',
  });
export type TProfileUpdate = z.input<typeof ZProfileUpdate>;

/** A new email: confirmed by a link mailed to it; the current password proves who asks. */
export const ZEmailChangeRequest = z.object({ email: requiredEmail, current_password: currentPassword });
export type TEmailChangeRequest = z.input<typeof ZEmailChangeRequest>;

export const ZEmailConfirmRequest = z.object({ token: z.string().min(20).max(200) });

/** The old address's undo link: the change's id and its signature. */
export const ZEmailUndoRequest = z.object({ token: z.string().min(20).max(200) });

/** What the undo link found: a waiting change (cancelled), none, a confirmed one (put back), one put back before. */
export const ZEmailUndoOutcome = z.enum(['cancelled', 'nothing-waiting', 'reverted', 'already-reverted']);
export type TEmailUndoOutcome = z.infer<typeof ZEmailUndoOutcome>;

export const ZPasswordChangeRequest = z.object({ current_password: currentPassword, password: ZNewPassword });
export type TPasswordChangeRequest = z.input<typeof ZPasswordChangeRequest>;
