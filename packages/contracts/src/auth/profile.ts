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
} as const;

/** How long a link to confirm a new email works. */
export const EMAIL_CHANGE_TTL_HOURS = 24;

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

export const ZPasswordChangeRequest = z.object({ current_password: currentPassword, password: ZNewPassword });
export type TPasswordChangeRequest = z.input<typeof ZPasswordChangeRequest>;
