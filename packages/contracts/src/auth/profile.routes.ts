import { z } from 'zod';
import { ZStatusMessage } from '../http/errors';
import { defineRoute } from '../http/routes';
import {
  ZEmailChangeRequest,
  ZEmailConfirmRequest,
  ZEmailUndoOutcome,
  ZEmailUndoRequest,
  ZPasswordChangeRequest,
  ZProfile,
  ZProfileUpdate,
} from './profile';

/**
 * The Profile screen's calls. The spec shows none; they sit in its `/settings/…` family,
 * beside `/settings/subscription` (and apart from `/settings/account/…`, the sending accounts).
 */
export const profileApi = {
  get: defineRoute({ method: 'GET', path: '/settings/profile', response: z.object({ data: ZProfile }) }),
  update: defineRoute({
    method: 'POST',
    path: '/settings/profile',
    body: ZProfileUpdate,
    response: ZStatusMessage.extend({ data: ZProfile }),
  }),
  /** Mails a link to the new address; nothing changes until it is opened. */
  changeEmail: defineRoute({
    method: 'POST',
    path: '/settings/profile/email',
    body: ZEmailChangeRequest,
    response: ZStatusMessage.extend({ data: ZProfile }),
  }),
  /** The link's page: public, the token says whose email changes. */
  confirmEmail: defineRoute({
    method: 'POST',
    path: '/settings/profile/email/confirm',
    body: ZEmailConfirmRequest,
    response: ZStatusMessage.extend({ email: z.string() }),
  }),
  /** Cancels the change waiting for its link (the Profile's Cancel): its link stops working. */
  cancelEmail: defineRoute({
    method: 'POST',
    path: '/settings/profile/email/cancel',
    response: ZStatusMessage.extend({ data: ZProfile }),
  }),
  /**
   * The link mailed to the old address: public (whoever reads that mailbox, without the
   * password); cancels a waiting change or, within a week, puts a confirmed one back.
   */
  undoEmail: defineRoute({
    method: 'POST',
    path: '/settings/profile/email/undo',
    body: ZEmailUndoRequest,
    response: ZStatusMessage.extend({ email: z.string(), outcome: ZEmailUndoOutcome }),
  }),
  /** Ends every session of the user, this one too; spends reset links and waiting email changes. */
  signOutEverywhere: defineRoute({
    method: 'POST',
    path: '/settings/profile/sign-out-everywhere',
    response: ZStatusMessage,
  }),
  /** Needs the current password; signs out every other session of the user. */
  changePassword: defineRoute({
    method: 'POST',
    path: '/settings/profile/password',
    body: ZPasswordChangeRequest,
    response: ZStatusMessage,
  }),
};
