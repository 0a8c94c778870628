import { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import { defineJob } from '../../platform/queue';
import { sendEmailChangedNotice, sendEmailChangeLink } from './profile.service';

/** Mails the link that confirms a new email; the payload is the change's id, the token is made here. */
export const sendEmailChangeLinkJob = defineJob({
  name: 'auth.send-email-change-link',
  schema: z.object({ changeId: z.number().int().positive() }),
  handler: ({ changeId }, platform: TPlatform) => sendEmailChangeLink(platform, changeId),
});

/** Tells the previous address that the account's email changed. */
export const sendEmailChangedNoticeJob = defineJob({
  name: 'auth.send-email-changed-notice',
  schema: z.object({ userId: z.number().int().positive(), previousEmail: z.string().max(320) }),
  handler: ({ userId, previousEmail }, platform: TPlatform) => sendEmailChangedNotice(platform, userId, previousEmail),
});

export const profileJobs = [sendEmailChangeLinkJob, sendEmailChangedNoticeJob];
