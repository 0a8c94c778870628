import { z } from 'zod';
import { publicUrl } from '../../platform/public-url';
import { defineJob } from '../../platform/queue';
import { mailTicketAnswer } from './tickets.service';

/** Mails the user an operator's answer (queued with the answer, in its transaction). */
export const notifyTicketAnswerJob = defineJob({
  name: 'tickets.notify-answer',
  schema: z.object({ ticketId: z.number().int().positive() }),
  queue: { retryLimit: 5 },
  handler: ({ ticketId }, platform) => mailTicketAnswer(platform, ticketId, `${publicUrl(platform)}/support`),
});

export const ticketJobs = [notifyTicketAnswerJob];
