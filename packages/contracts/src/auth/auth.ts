import { z } from 'zod';

export const PASSWORD_MIN_LENGTH = 6;

const email = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.email({ message: 'Please enter a valid email address.' }));

export const ZLoginRequest = z.object({
  email,
  password: z.string().min(1, { message: 'The password field is required.' }).max(1024),
});
export type TLoginRequest = z.infer<typeof ZLoginRequest>;

export const ZNewPassword = z
  .string()
  .max(1024)
  .transform((value) => value.trim())
  .pipe(
    z.string().min(PASSWORD_MIN_LENGTH, {
      message: `The password must be at least ${PASSWORD_MIN_LENGTH} characters.`,
    }),
  );

export const ZForgotPasswordRequest = z.object({ email });
export type TForgotPasswordRequest = z.infer<typeof ZForgotPasswordRequest>;

export const ZResetPasswordRequest = z.object({
  token: z.string().min(20).max(200),
  password: ZNewPassword,
});
export type TResetPasswordRequest = z.infer<typeof ZResetPasswordRequest>;

export const ZPlanSummary = z.object({
  id: z.number().int(),
  name: z.string(),
  isFree: z.boolean(),
});

/** `GET /api/user-information` → `{data}`. */
export const ZUserInformation = z.object({
  id: z.number().int(),
  name: z.string(),
  email: z.string(),
  free: z.boolean(),
  plan: ZPlanSummary,
  time_zone: z.string(),
  /** 'operator' sees the operator area. */
  role: z.enum(['user', 'operator']),
  /** Support answers not read yet (the Support link's badge; `TicketEvent` keeps it current). */
  unread_tickets: z.number().int(),
  /** The balance when the page loads; `CreditBalanceEvent` keeps it current after. */
  credit: z.object({ totalCredit: z.number().int(), usedCredit: z.number().int() }),
  /** False on a single-company install (`BILLING=off`): no plans, credits or Subscription anywhere. */
  billing: z.boolean(),
});
export type TUserInformation = z.infer<typeof ZUserInformation>;

export const ZCsrfResponse = z.object({ token: z.string() });

export const CSRF_HEADER = 'x-csrf-token';
