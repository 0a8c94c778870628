import { z } from 'zod';

/**
 * A 422 answer: the first message of each field is what the web app shows as a toast
 * (spec error catalogue, "HTTP 422"). Field names are the request's own field names.
 */
export const ZValidationErrorBody = z.object({
  message: z.string(),
  errors: z.record(z.string(), z.array(z.string())),
});
export type TValidationErrorBody = z.infer<typeof ZValidationErrorBody>;

/** Every other error answer: the web app shows `message` in an 'Error!' dialog. */
export const ZErrorBody = z.object({
  status: z.literal(false),
  message: z.string(),
  code: z.string().optional(),
  /** What the page needs to show this error beyond the message (e.g. the ERR_LIMIT dialog's texts). */
  errorData: z.unknown().optional(),
});
export type TErrorBody = z.infer<typeof ZErrorBody>;

/** The spec's `{status, message}` answer for state changes that return nothing else. */
export const ZStatusMessage = z.object({
  status: z.boolean(),
  message: z.string(),
});
export type TStatusMessage = z.infer<typeof ZStatusMessage>;
