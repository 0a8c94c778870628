import { z } from 'zod';
import { ZNewPassword } from '../auth/auth';
import { ZTimeZone } from '../time/zones';

/** The spec's registration messages (sending-lists-verification §5). */
export const REGISTRATION_MESSAGES = {
  captcha: 'Please verify the captcha!',
  package: 'Please select package!',
  closed: 'Registration is closed on this Sendwell. Ask its operator for an account.',
  card: 'Please enter the correct information in the card field!',
  form: 'Please fill the form correctly!',
} as const;

/** The default free plan (spec §9) and the plan a referred sign-up gets when none is chosen. */
export const DEFAULT_FREE_PLAN_ID = 2;
export const referredPlanName = (product: string) => `${product.toLowerCase()}-pro`;
export const PRODUCT_NAME = 'Sendwell';

const requiredEmail = z
  .string()
  .trim()
  .toLowerCase()
  .min(1, { message: 'The email field is required.' })
  .pipe(z.email({ message: 'Please enter a valid email address.' }));

/**
 * `POST /api/register-with-subscribe`, multipart or JSON: the spec's fields plus `altcha`,
 * the captcha widget's payload. Empty strings mean "not given", as a form sends them.
 */
export const ZRegisterRequest = z.object({
  name: z.string().trim().min(1, { message: 'The full name field is required.' }).max(200),
  email: requiredEmail,
  password: ZNewPassword,
  referred_by: z
    .string()
    .trim()
    .toLowerCase()
    .max(320)
    .optional()
    .transform((value) => value || undefined)
    .pipe(z.email({ message: 'The referrer must be a valid email address.' }).optional()),
  package_id: z
    .string()
    .trim()
    .optional()
    .transform((value) => (value ? Number(value) : undefined))
    .pipe(z.number().int({ message: REGISTRATION_MESSAGES.package }).positive().optional()),
  stripeToken: z
    .string()
    .trim()
    .max(255)
    .optional()
    .transform((value) => value || undefined),
  altcha: z.string().max(20_000).optional().default(''),
  /**
   * The new user's time zone (the page offers the browser's). Left out or blank: the spec's
   * default, America/New_York.
   */
  time_zone: z
    .string()
    .trim()
    .optional()
    .transform((value) => value || undefined)
    .pipe(ZTimeZone.optional()),
});
export type TRegisterRequest = z.input<typeof ZRegisterRequest>;

export const ZRegisterResponse = z.object({
  status: z.literal(true),
  message: z.string(),
  route: z.string(),
  stripe_id: z.string().nullable(),
  user_id: z.number().int(),
});
export type TRegisterResponse = z.infer<typeof ZRegisterResponse>;

/** `GET /api/packages` → `{data: [package]}`: the spec's package (id, name, price, isFree, plan_name, tax) and what the plan allows. */
export const ZPackage = z.object({
  id: z.number().int(),
  name: z.string(),
  /** US dollars a month; 0 for free plans. */
  price: z.number(),
  isFree: z.boolean(),
  plan_name: z.string(),
  tax: z.number(),
  allowsScheduling: z.boolean(),
  allowsAccounts: z.boolean(),
  monthlyCredits: z.number().int(),
  trialCredits: z.number().int(),
});
export type TPackage = z.infer<typeof ZPackage>;

/** One-time credit purchases (Buy Credits): whole packs, priced in US dollars. */
export const CREDIT_PACKS = [
  { credits: 1_000, price: 10 },
  { credits: 5_000, price: 40 },
  { credits: 25_000, price: 150 },
  { credits: 100_000, price: 500 },
] as const;

/** `GET /api/billing/options`, public: what the billing screens may offer on this server. */
export const ZBillingOptions = z.object({
  /** False on a single-company install (`BILLING=off`): registration takes no plan, and nothing is sold. */
  billing: z.boolean(),
  /** `closed`: the operator adds users (the admin CLI); the registration page says so. */
  registration: z.enum(['open', 'closed']),
  /** Null when the operator has not configured Stripe: paid plans and purchases are unavailable. */
  stripePublishableKey: z.string().nullable(),
  creditPacks: z.array(z.object({ credits: z.number().int(), price: z.number() })),
});
export type TBillingOptions = z.infer<typeof ZBillingOptions>;

/** `GET /api/subscription` → `{data}`. */
export const ZSubscriptionState = z.object({
  planId: z.number().int(),
  /** The Stripe subscription behind a paid plan; null for free plans and plans set by an operator. */
  subscription: z
    .object({
      status: z.string(),
      currentPeriodEnd: z.string().nullable(),
    })
    .nullable(),
  /** Whether Stripe holds a card for this user, so upgrades need no card field. */
  hasCard: z.boolean(),
});
export type TSubscriptionState = z.infer<typeof ZSubscriptionState>;

/** `POST /api/subscription/change`: move to another plan; a paid plan without a card on file needs `stripeToken`. */
export const ZChangePlanRequest = z.object({
  package_id: z.number().int().positive({ message: REGISTRATION_MESSAGES.package }),
  stripeToken: z.string().trim().max(255).optional(),
});
export type TChangePlanRequest = z.infer<typeof ZChangePlanRequest>;

/** `POST /api/credits/purchase`: one pack, paid once. */
export const ZBuyCreditsRequest = z.object({
  credits: z
    .number()
    .int()
    .refine((credits) => CREDIT_PACKS.some((pack) => pack.credits === credits), {
      message: 'Please choose one of the credit packs.',
    }),
  stripeToken: z.string().trim().max(255).optional(),
});
export type TBuyCreditsRequest = z.infer<typeof ZBuyCreditsRequest>;

/** `POST /api/contact-us`, public. */
export const ZContactRequest = z.object({
  name: z.string().trim().min(1, { message: 'The name field is required.' }).max(200),
  email: requiredEmail,
  subject: z.string().trim().min(1, { message: 'The subject field is required.' }).max(200),
  message: z.string().trim().min(10, { message: 'Please write at least 10 characters.' }).max(5_000),
});
export type TContactRequest = z.infer<typeof ZContactRequest>;

/** Local parts that name a role, not a person (info@, sales@): the spec's generic addresses. */
export const GENERIC_EMAIL_PREFIXES = [
  'abuse',
  'admin',
  'billing',
  'contact',
  'help',
  'hello',
  'hostmaster',
  'info',
  'jobs',
  'mail',
  'marketing',
  'no-reply',
  'noreply',
  'office',
  'postmaster',
  'sales',
  'security',
  'support',
  'team',
  'webmaster',
] as const;

/**
 * `GET /api/ajax/get-credit-info`. userCredit is the total (the spec's totalCredit): usable
 * is userCredit − usedCredit. isSmtp / isGmail: whether the user has an SMTP / Gmail account.
 */
export const ZCreditInfo = z.object({
  status: z.literal(true),
  userCredit: z.number().int(),
  usedCredit: z.number().int(),
  genericEmails: z.array(z.string()),
  isSmtp: z.boolean(),
  isGmail: z.boolean(),
});
export type TCreditInfo = z.infer<typeof ZCreditInfo>;
