import { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import { defineJob } from '../../platform/queue';
import { sendEmailChangedNotice, sendEmailChangeLink, sendEmailChangeRequestedNotice } from './profile.service';

/** Mails the link that confirms a new email; the payload is the change's id, the token is made here. */
export const sendEmailChangeLinkJob = defineJob({
  name: 'auth.send-email-change-link',
  schema: z.object({ changeId: z.number().int().positive() }),
  handler: ({ changeId }, platform: TPlatform) => sendEmailChangeLink(platform, changeId),
});

/** Tells the old address that a change was asked for, with the link that undoes it without the password. */
export const sendEmailChangeRequestedNoticeJob = defineJob({
  name: 'auth.send-email-change-requested-notice',
  schema: z.object({ changeId: z.number().int().positive() }),
  handler: ({ changeId }, platform: TPlatform) => sendEmailChangeRequestedNotice(platform, changeId),
});

/** Tells the previous address that the account's email changed (with the undo link; jobs queued before it had no `changeId`). */
export const sendEmailChangedNoticeJob = defineJob({
  name: 'auth.send-email-changed-notice',
  schema: z.object({
    userId: z.number().int().positive(),
    previousEmail: z.string().max(320),
    changeId: z.number().int().positive().optional(),
  }),
  handler: ({ userId, previousEmail, changeId }, platform: TPlatform) =>
    sendEmailChangedNotice(platform, userId, previousEmail, changeId),
});

export const profileJobs = [sendEmailChangeLinkJob, sendEmailChangeRequestedNoticeJob, sendEmailChangedNoticeJob];
