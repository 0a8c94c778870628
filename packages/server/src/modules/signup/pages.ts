import { HONEYPOT_FIELD, type TSignupFields } from '@sendwell/contracts';

/**
 * The pages a visitor sees (issue 48 §1): the hosted signup form, the captcha step an
 * embedded form lands on, the confirmation and the preferences page. Server-rendered, no
 * app shell and no session; the only script is the captcha widget (ALTCHA's, served from
 * here), and every form works as a plain HTML form. WCAG 2.2 AA: labels on every field,
 * errors tied to their field and announced, visible focus, 4.5:1 contrast, nothing wider
 * than a phone.
 */

export const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

/** Where the captcha widget's script is served (`signup.routes.ts`). */
export const CAPTCHA_SCRIPT_PATH = '/subscribe/altcha.js';
const CHALLENGE_PATH = '/api/captcha/challenge';

const STYLE = `
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f4f6fb;color:#1a1b1e;margin:0;padding:24px 12px;line-height:1.5}
main{background:#fff;border-radius:12px;padding:28px 24px;width:100%;max-width:480px;margin:0 auto;box-shadow:0 2px 12px #0002}
h1{font-size:22px;margin:0 0 8px;overflow-wrap:anywhere}
h2{font-size:17px;margin:24px 0 8px}
p{margin:0 0 12px;overflow-wrap:anywhere}
.muted{color:#495057}
label{display:block;font-weight:600;margin-bottom:4px}
.field{margin-bottom:14px}
input[type=text],input[type=email]{width:100%;font:inherit;padding:9px 10px;border:1px solid #868e96;border-radius:8px}
input:focus-visible,button:focus-visible,a:focus-visible,altcha-widget:focus-within{outline:3px solid #1c7ed6;outline-offset:2px}
input[aria-invalid=true]{border-color:#c92a2a}
.error{color:#c92a2a;font-size:14px;margin:4px 0 0}
.alert{border:1px solid #c92a2a;background:#fff5f5;color:#a61e1e;border-radius:8px;padding:10px 12px;margin-bottom:14px}
.notice{border:1px solid #2b8a3e;background:#ebfbee;color:#1e6130;border-radius:8px;padding:10px 12px;margin-bottom:14px}
button{font:inherit;font-weight:600;background:#364fc7;color:#fff;border:0;border-radius:8px;padding:10px 18px;cursor:pointer}
button.secondary{background:#fff;color:#364fc7;border:1px solid #364fc7}
.hp{position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden}
ul.lists{list-style:none;padding:0;margin:0}
ul.lists li{display:flex;flex-wrap:wrap;gap:8px;align-items:center;justify-content:space-between;border-top:1px solid #dee2e6;padding:10px 0}
ul.lists form{margin:0}
.consent{font-size:14px;color:#495057}
altcha-widget{display:block;margin:8px 0 16px}
`;

/** A page of its own: title, the body, and the captcha script when a form needs it. */
export const page = (title: string, body: string, { withCaptcha = false } = {}) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><meta name="robots" content="noindex">
<style>${STYLE}</style>${withCaptcha ? `<script type="module" src="${CAPTCHA_SCRIPT_PATH}"></script>` : ''}
</head><body><main>${body}</main></body></html>`;

export type TFormValues = Record<string, string>;
export type TFormErrors = Record<string, string>;

const field = (
  name: string,
  label: string,
  {
    type = 'text',
    required = false,
    autocomplete = '',
    values,
    errors,
    maxLength = 200,
  }: {
    type?: string;
    required?: boolean;
    autocomplete?: string;
    values: TFormValues;
    errors: TFormErrors;
    maxLength?: number;
  },
) => {
  const error = errors[name];
  const id = `f-${name}`;
  return `<div class="field"><label for="${id}">${escapeHtml(label)}${required ? ' <span class="muted">(required)</span>' : ''}</label>
<input id="${id}" name="${escapeHtml(name)}" type="${type}" value="${escapeHtml(values[name] ?? '')}" maxlength="${maxLength}"${required ? ' required aria-required="true"' : ''}${autocomplete ? ` autocomplete="${autocomplete}"` : ''}${error ? ` aria-invalid="true" aria-describedby="${id}-error"` : ''}>
${error ? `<p class="error" id="${id}-error">${escapeHtml(error)}</p>` : ''}</div>`;
};

export type TSignupPage = {
  listName: string;
  description: string;
  fields: TSignupFields;
  consentText: string;
  /** Where the form posts: this origin's API (a relative address, whatever the page was reached by). */
  action: string;
  values: TFormValues;
  errors: TFormErrors;
  /** Shown above the form: why it is back (a refused captcha, the embedded form's step). */
  message?: { kind: 'alert' | 'notice'; text: string };
  /** Which form the visitor started from, carried through the captcha step. */
  origin: { form: 'hosted' | 'embedded'; page: string };
};

/** The name fields a list may ask for, hide or require: the field, its label, what a browser fills it with. */
const NAME_FIELDS = [
  ['first_name', 'First name', 'given-name'],
  ['last_name', 'Last name', 'family-name'],
] as const;

/** The signup form with the captcha: the hosted page, and the step an embedded form comes back to. */
export const signupPage = (input: TSignupPage) => {
  const { fields, values, errors } = input;
  const errorCount = Object.keys(errors).length;
  let form = `<form method="post" action="${escapeHtml(input.action)}" novalidate>`;
  form += field('email', 'Email', {
    type: 'email',
    required: true,
    autocomplete: 'email',
    values,
    errors,
    maxLength: 320,
  });
  for (const [key, label, autocomplete] of NAME_FIELDS) {
    if (fields[key] === 'hidden') continue;
    form += field(key, label, { required: fields[key] === 'required', autocomplete, values, errors });
  }
  for (const custom of fields.custom) {
    form += field(custom.key, custom.label, { required: custom.required, values, errors, maxLength: 1000 });
  }
  // People never see or fill this; a robot filling every field does.
  form += `<div class="hp" aria-hidden="true"><label for="f-${HONEYPOT_FIELD}">Leave this empty</label><input id="f-${HONEYPOT_FIELD}" name="${HONEYPOT_FIELD}" type="text" tabindex="-1" autocomplete="off"></div>`;
  form += `<input type="hidden" name="form" value="${input.origin.form}"><input type="hidden" name="page" value="${escapeHtml(input.origin.page)}">`;
  form += `<div class="field"><p id="captcha-label" class="muted">Before you subscribe, your browser proves it is not a robot (this takes a second, no puzzle to solve).</p>
<altcha-widget challenge="${CHALLENGE_PATH}" name="altcha" auto="onsubmit" aria-describedby="captcha-label" configuration='{"hideLogo":true,"hideFooter":true,"auto":"onsubmit"}'></altcha-widget>
${errors.altcha ? `<p class="error" id="f-altcha-error" role="alert">${escapeHtml(errors.altcha)}</p>` : ''}
<noscript><p class="error">This check needs JavaScript. Turn it on for this page to subscribe.</p></noscript></div>`;
  if (input.consentText) form += `<p class="consent">${escapeHtml(input.consentText)}</p>`;
  form += `<button type="submit">Subscribe</button></form>`;
  const alert =
    errorCount > 0
      ? `<div class="alert" role="alert">${errorCount === 1 ? 'One field needs' : `${errorCount} fields need`} your attention.</div>`
      : input.message
        ? `<div class="${input.message.kind}" role="${input.message.kind === 'alert' ? 'alert' : 'status'}">${escapeHtml(input.message.text)}</div>`
        : '';
  return page(
    `Subscribe to ${input.listName}`,
    `<h1>Subscribe to ${escapeHtml(input.listName)}</h1>${input.description ? `<p class="muted">${escapeHtml(input.description)}</p>` : ''}${alert}${form}`,
    { withCaptcha: true },
  );
};

/** A page with a heading and a few sentences (thanks, confirmed, not valid). */
export const messagePage = (title: string, paragraphs: string[], extra = '') =>
  page(
    title,
    `<h1>${escapeHtml(title)}</h1>${paragraphs.map((text) => `<p>${escapeHtml(text)}</p>`).join('')}${extra}`,
  );

/** The confirmation link's page: one button, so a link scanner fetching the page confirms nothing. */
export const confirmPage = (listName: string, action: string) =>
  page(
    `Confirm your subscription to ${listName}`,
    `<h1>Confirm your subscription</h1><p>Press the button to start receiving emails from <strong>${escapeHtml(listName)}</strong>.</p>
<form method="post" action="${escapeHtml(action)}"><button type="submit">Yes, subscribe me</button></form>`,
  );

export type TPreferencesPage = {
  email: string;
  sender: string;
  name: string;
  lists: { id: number; name: string; description: string; state: 'subscribed' | 'unconfirmed' | 'unsubscribed' }[];
  action: string;
  notice?: string;
};

/** The preferences page of the footer's link: the sender's lists the person is on, their name, leaving one or all. */
export const preferencesPage = (input: TPreferencesPage) => {
  const active = input.lists.filter((list) => list.state !== 'unsubscribed');
  const items = input.lists
    .map((list) => {
      const state =
        list.state === 'subscribed'
          ? 'Subscribed'
          : list.state === 'unconfirmed'
            ? 'Waiting for your confirmation'
            : 'Unsubscribed';
      const button =
        list.state === 'unsubscribed'
          ? ''
          : `<form method="post" action="${escapeHtml(input.action)}"><input type="hidden" name="action" value="leave"><input type="hidden" name="list" value="${list.id}"><button type="submit" class="secondary" aria-label="Unsubscribe from ${escapeHtml(list.name)}">Unsubscribe</button></form>`;
      return `<li><div><strong>${escapeHtml(list.name)}</strong><br><span class="muted">${state}</span></div>${button}</li>`;
    })
    .join('');
  const body = `<h1>Your email preferences</h1>
<p class="muted">For ${escapeHtml(input.email)}, from ${escapeHtml(input.sender)}.</p>
${input.notice ? `<div class="notice" role="status">${escapeHtml(input.notice)}</div>` : ''}
<h2>Your lists</h2>
${input.lists.length === 0 ? '<p>You are on none of this sender’s lists.</p>' : `<ul class="lists">${items}</ul>`}
${
  active.length > 0
    ? `<form method="post" action="${escapeHtml(input.action)}" style="margin-top:12px"><input type="hidden" name="action" value="leave-all"><button type="submit">Unsubscribe from all</button></form>`
    : ''
}
${
  input.lists.length > 0
    ? `<h2>Your name</h2><form method="post" action="${escapeHtml(input.action)}"><input type="hidden" name="action" value="rename">
<div class="field"><label for="f-name">Name</label><input id="f-name" name="name" type="text" autocomplete="name" maxlength="200" value="${escapeHtml(input.name)}"></div>
<button type="submit" class="secondary">Save my name</button></form>`
    : ''
}`;
  return page('Your email preferences', body);
};
