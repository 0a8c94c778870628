import { z } from 'zod';
import { mergeFieldsOf } from '../sending/merge-fields';

/**
 * Signup forms and double opt-in (issue 48 §1): a list's public form, its confirmation
 * email and the consent each member gave. The rules both sides read live here: the
 * server renders the hosted page and the snippet from them, the web app edits them.
 */

/** How a standard field appears on the form. */
export const SIGNUP_FIELD_MODES = ['hidden', 'optional', 'required'] as const;
export type TSignupFieldMode = (typeof SIGNUP_FIELD_MODES)[number];

/** A custom field's key: what the member's `fields` and a merge field (`{{key}}`) call it. */
const customKey = z
  .string()
  .trim()
  .regex(/^[A-Za-z][A-Za-z0-9_]{0,31}$/, {
    message: 'A field key starts with a letter and holds letters, digits and _ only (at most 32).',
  })
  .refine((key) => !RESERVED_FIELD_KEYS.has(key.toLowerCase()), {
    message: 'This key is taken by a standard field.',
  });

/** Keys the form itself uses (and merge fields every message has). */
export const RESERVED_FIELD_KEYS = new Set([
  'email',
  'name',
  'first_name',
  'last_name',
  'altcha',
  'website',
  'confirm_url',
  'list_name',
]);

export const MAX_CUSTOM_SIGNUP_FIELDS = 10;

/** Which fields a list's form asks for, besides the email (always there, always required). */
export const ZSignupFields = z
  .object({
    first_name: z.enum(SIGNUP_FIELD_MODES).default('optional'),
    last_name: z.enum(SIGNUP_FIELD_MODES).default('optional'),
    custom: z
      .array(
        z.object({
          key: customKey,
          label: z.string().trim().min(1, { message: 'Give the field a label.' }).max(100),
          required: z.boolean().default(false),
        }),
      )
      .max(MAX_CUSTOM_SIGNUP_FIELDS, { message: `At most ${MAX_CUSTOM_SIGNUP_FIELDS} custom fields.` })
      .default([])
      .refine((fields) => new Set(fields.map((field) => field.key.toLowerCase())).size === fields.length, {
        message: 'Two fields have the same key.',
      }),
  })
  .default({ first_name: 'optional', last_name: 'optional', custom: [] });
export type TSignupFields = z.output<typeof ZSignupFields>;

/**
 * The confirmation email's merge fields besides the member's own: the link that confirms
 * (required in every confirmation email) and the list's name.
 */
export const CONFIRM_URL_FIELD = 'confirm_url';

/** What a list uses while its owner has written nothing of their own. */
export const SIGNUP_DEFAULTS = {
  confirmationSubject: 'Please confirm your subscription to {{list_name}}',
  confirmationHtml:
    '<p>Hello,</p><p>Someone, hopefully you, asked to receive emails from <strong>{{list_name}}</strong> at this address.</p>' +
    '<p>To confirm, <a href="{{confirm_url}}">open this link and press the button</a>; until you do, you get nothing from us.</p>' +
    '<p>If it was not you, ignore this email: you will not be added, and you will hear nothing more from us.</p>',
} as const;

/** How long a confirmation link works, and the least time between two confirmation emails to one member. */
export const CONFIRMATION_TTL_HOURS = 7 * 24;
export const CONFIRMATION_COOLDOWN_MINUTES = 10;
/** A signup never confirmed is deleted this long after its link expired: nobody agreed to be kept. */
export const UNCONFIRMED_KEPT_DAYS = 30;

/**
 * How many signups a form takes: per client address (every list together) and per list, in
 * an hour. A signup that passed the captcha counts; a form shown again does not.
 */
export const SIGNUP_LIMITS = { perIpPerHour: 20, perListPerHour: 300 } as const;

/** The honeypot's name: a field people never see or fill; a form that fills it is a robot's. */
export const HONEYPOT_FIELD = 'website';

export const MAX_CONFIRMATION_HTML = 100_000;

/** `POST /api/mailing-lists/{listId}/signup-form`: the form's fields, double opt-in and its email. */
export const ZUpdateSignupSettings = z
  .object({
    double_opt_in: z.boolean(),
    form_fields: ZSignupFields,
    consent_text: z.string().trim().max(2000).default(''),
    confirmation_subject: z.string().trim().max(300).default(''),
    confirmation_html: z.string().trim().max(MAX_CONFIRMATION_HTML).default(''),
  })
  .superRefine((settings, context) => {
    if (settings.confirmation_subject && /[\r\n]/.test(settings.confirmation_subject)) {
      context.addIssue({ code: 'custom', path: ['confirmation_subject'], message: 'The subject is one line.' });
    }
    if (settings.confirmation_html && !mergeFieldsOf(settings.confirmation_html).includes(CONFIRM_URL_FIELD)) {
      context.addIssue({
        code: 'custom',
        path: ['confirmation_html'],
        message: `The email must hold the confirmation link, {{${CONFIRM_URL_FIELD}}}.`,
      });
    }
  });
export type TUpdateSignupSettings = z.input<typeof ZUpdateSignupSettings>;

export const ZSignupSettings = z.object({
  double_opt_in: z.boolean(),
  form_fields: ZSignupFields,
  consent_text: z.string(),
  confirmation_subject: z.string(),
  confirmation_html: z.string(),
  /** The hosted page. */
  form_url: z.string(),
  /** Where a form (the hosted page's or an embedded copy) posts. */
  form_action: z.string(),
  /** Plain HTML to paste into any page: works without JavaScript. */
  embed_html: z.string(),
});
export type TSignupSettings = z.infer<typeof ZSignupSettings>;

/** Where a member came from, and what they agreed to. */
export const CONSENT_SOURCES = ['form', 'manual', 'import', 'provider', 'api'] as const;
export type TConsentSource = (typeof CONSENT_SOURCES)[number];

export const ZMemberConsent = z.object({
  source: z.enum(CONSENT_SOURCES),
  /** Which form (hosted or embedded), which file. */
  detail: z.string(),
  /** When the person agreed (signed up; for an import, when it ran). */
  agreed_at: z.string(),
  ip: z.string().nullable(),
  user_agent: z.string().nullable(),
  consent_text: z.string(),
  confirmation_sent_at: z.string().nullable(),
  confirmed_at: z.string().nullable(),
  confirmed_ip: z.string().nullable(),
});
export type TMemberConsent = z.infer<typeof ZMemberConsent>;

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

const fieldInput = (name: string, label: string, type: string, required: boolean, autocomplete: string) =>
  `  <p>\n    <label for="sw-${name}">${escapeHtml(label)}${required ? ' (required)' : ''}</label><br>\n` +
  `    <input id="sw-${name}" name="${name}" type="${type}"${autocomplete ? ` autocomplete="${autocomplete}"` : ''}${required ? ' required' : ''} maxlength="${type === 'email' ? 320 : 200}">\n  </p>\n`;

/**
 * The form as plain HTML (no script, no style sheet of ours): what the settings offer to
 * copy into another site, and the fields of the hosted page. The honeypot is hidden by an
 * inline style and from assistive technology, so people never fill it.
 */
export const signupFormHtml = (input: {
  action: string;
  listName: string;
  fields: TSignupFields;
  consentText: string;
}) => {
  const { fields } = input;
  let html = `<form method="post" action="${escapeHtml(input.action)}" accept-charset="utf-8">\n`;
  html += fieldInput('email', 'Email', 'email', true, 'email');
  if (fields.first_name !== 'hidden') {
    html += fieldInput('first_name', 'First name', 'text', fields.first_name === 'required', 'given-name');
  }
  if (fields.last_name !== 'hidden') {
    html += fieldInput('last_name', 'Last name', 'text', fields.last_name === 'required', 'family-name');
  }
  for (const field of fields.custom) html += fieldInput(field.key, field.label, 'text', field.required, '');
  html +=
    `  <div aria-hidden="true" style="position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden">\n` +
    `    <label for="sw-${HONEYPOT_FIELD}">Leave this empty</label>\n` +
    `    <input id="sw-${HONEYPOT_FIELD}" name="${HONEYPOT_FIELD}" type="text" tabindex="-1" autocomplete="off">\n  </div>\n`;
  if (input.consentText) html += `  <p>${escapeHtml(input.consentText)}</p>\n`;
  html += `  <p><button type="submit">Subscribe to ${escapeHtml(input.listName)}</button></p>\n</form>\n`;
  return html;
};
