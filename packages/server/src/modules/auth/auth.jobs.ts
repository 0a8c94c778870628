import { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import { defineJob } from '../../platform/queue';
import { sendPasswordReset } from './auth.service';

/**
 * Mails a password reset link, if an account has that email. The forgot-password form only
 * queues this job, the same way for every email, so its answer neither says nor takes longer
 * when the account exists. The payload is the typed email rather than a user id: looking the
 * user up in the request is the difference this job removes. Run twice, it mails a second
 * link; each works once and expires within the hour.
 */
export const sendPasswordResetJob = defineJob({
  name: 'auth.send-password-reset',
  schema: z.object({ email: z.string().max(320) }),
  handler: async ({ email }, platform: TPlatform) => sendPasswordReset(platform, email),
});

export const authJobs = [sendPasswordResetJob];
