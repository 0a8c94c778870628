import { z } from 'zod';
import { defineRoute } from '../http/routes';

/**
 * A person's data on request (issue 48 §4, R46): everything the signed-in user holds about
 * one address, exported or erased. The address is given in the body, never the URL, so it
 * stays out of access logs (a log line is data held about the person too).
 */

const address = z
  .string()
  .trim()
  .min(3)
  .max(320)
  .refine((value) => value.includes('@') && !/\s/.test(value), { message: 'Please enter a valid email address.' });

export const ZPersonExportRequest = z.object({
  email: address,
  format: z.enum(['json', 'csv']).default('json'),
});
export type TPersonExportRequest = z.input<typeof ZPersonExportRequest>;

export const ZPersonEraseRequest = z.object({ email: address });
export type TPersonEraseRequest = z.input<typeof ZPersonEraseRequest>;

export const ZPersonEraseResponse = z.object({
  status: z.literal(true),
  message: z.string(),
  /** Rows deleted, by table. */
  data: z.record(z.string(), z.number().int()),
});
export type TPersonEraseResponse = z.infer<typeof ZPersonEraseResponse>;

export const privacyApi = {
  /** A document: JSON (every row by table) or CSV (one line per row), as an attachment. */
  exportPerson: defineRoute({
    method: 'POST',
    path: '/privacy/person/export',
    body: ZPersonExportRequest,
    response: z.string(),
  }),
  erasePerson: defineRoute({
    method: 'POST',
    path: '/privacy/person/erase',
    body: ZPersonEraseRequest,
    response: ZPersonEraseResponse,
  }),
};
