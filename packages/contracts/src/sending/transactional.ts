import { z } from 'zod';
import { FIGURE_NAMES } from './figures';
import { SEND_STATUSES, ZSendEmailRequest } from './sending';

/** The Send Email form's own fields where the call has the same ones: one reading of a sender. */
const form = ZSendEmailRequest.shape;

/**
 * `POST /api/email/transactional` (issue 48 §2): a saved template to one address, with merge
 * data, through the same engine as every send (suppression, tracking, events, webhooks).
 * An idempotency key (the `Idempotency-Key` header, or `idempotency_key`) makes a retried
 * call answer the send the first one made instead of sending again.
 */
export const ZTransactionalRequest = z.object({
  /** One of the user's own templates (its subject and HTML), or a starting one. */
  template_id: z.coerce.number().int().positive(),
  /** The sending account, and the sender as Send Email names it for the account's kind. */
  account: form.account,
  senderName: form.senderName,
  alias: form.alias,
  useSubdomain: form.useSubdomain,
  to: z.string().max(320),
  name: z
    .string()
    .max(200)
    .refine((value) => !/[\r\n]/.test(value), { message: 'The name may not hold a line break.' })
    .optional()
    .default(''),
  /** Merge data: `{{key}}` in the subject and HTML (and `{{name}}`, `{{email}}`). */
  data: z
    .record(z.string().max(64), z.string().max(10_000))
    .refine((data) => Object.keys(data).length <= 100, { message: 'At most 100 merge fields.' })
    .optional()
    .default({}),
  /** Replaces the template's subject. */
  subject: form.subject.optional(),
  reply_to: form.reply,
  track_opens: z.boolean().optional().default(true),
  track_clicks: z.boolean().optional().default(true),
  idempotency_key: z.string().trim().min(1).max(255).optional(),
});
export type TTransactionalRequest = z.input<typeof ZTransactionalRequest>;

export const ZTransactionalResponse = z.object({
  status: z.literal(true),
  message: z.string(),
  /** The send: its figures at `GET /api/history/sends/{id}/figures`. */
  send_id: z.number().int(),
  /** False when the address is suppressed or unsubscribed: nothing is sent to it. */
  queued: z.boolean(),
  /** True when an earlier call with the same idempotency key made this send. */
  replayed: z.boolean(),
});
export type TTransactionalResponse = z.infer<typeof ZTransactionalResponse>;

export const TRANSACTIONAL_MESSAGES = {
  queued: 'Your email is on its way.',
  suppressed: 'This address is suppressed or unsubscribed: nothing was sent.',
  replayed: 'This idempotency key was used before: this is the send it made.',
  keyReused: 'This idempotency key was used before with other parameters. Use a new key for a new email.',
  templateNotFound: 'This template does not exist.',
} as const;

/** `GET /api/history/sends/{id}/figures`: a send's figures, by the one definition (`figures.ts`). */
export const ZSendFiguresResponse = z.object({
  data: z.object({
    send_id: z.number().int(),
    status: z.enum(SEND_STATUSES),
    subject: z.string(),
    created_at: z.string(),
    finished_at: z.string().nullable(),
    figures: z.object(
      Object.fromEntries(FIGURE_NAMES.map((name) => [name, z.number().int()])) as {
        [K in (typeof FIGURE_NAMES)[number]]: z.ZodNumber;
      },
    ),
  }),
});
export type TSendFiguresResponse = z.infer<typeof ZSendFiguresResponse>;
