import {
  CONFIRM_URL_FIELD,
  canonicalEmail,
  HONEYPOT_FIELD,
  LIST_MESSAGES,
  SIGNUP_DEFAULTS,
  SIGNUP_LIMITS,
} from '@sendwell/contracts';
import type { TPlatform } from '../../platform/context';
import type { Executor } from '../../platform/db';
import { HttpError, ValidationError } from '../../platform/errors';
import { publicUrl } from '../../platform/public-url';
import { consumeRateLimit } from '../../platform/rate-limit';
import { applyOutcomes, createSourcedSend, findRecipientByRef } from '../delivery/delivery.service';
import { queueSearchIndexing } from '../lists/lists.jobs';
import type { TFormList } from '../lists/signup-form.service';
import {
  confirmSubscription,
  findConfirmation,
  membershipsOnAccount,
  recordConfirmationSend,
  renameMembers,
  subscribeMember,
  type TSignup,
  unsubscribeMembers,
} from '../lists/subscriptions.service';
import { consumeSolution } from '../registration/captcha.service';

/**
 * The public side of signup forms (issue 48 §1, R47): a visitor's signup through a list's
 * hosted page or a copy of its form on another site, the confirmation email and link, and
 * the preferences page every email's footer links to. No session and no CSRF token here: a
 * form on another site cannot carry ours, and there is no signed-in user to ride on.
 * Instead every signup passes the captcha (ALTCHA, as registration) and the honeypot, and
 * is limited per client address and per list; the confirmation email stops anyone from
 * subscribing an address that is not theirs.
 */

export type TSignupForm = Record<string, string>;

export type TSignupAnswer =
  /** Done (or a robot pretending): the thanks page. */
  | { kind: 'done' }
  /** Shown again: errors beside the fields, or the captcha step (an embedded form). */
  | { kind: 'form'; errors: Record<string, string>; status: 200 | 422 | 429; message?: string };

const NAME_MAX = 100;
const FIELD_MAX = 1000;

/** The form's values as the visitor typed them (trimmed, clipped), for the page shown again. */
export const formValues = (list: TFormList, body: TSignupForm) => {
  const keys = ['email', 'first_name', 'last_name', ...list.form_fields.custom.map((field) => field.key)];
  return Object.fromEntries(
    keys.map((key) => [
      key,
      String(body[key] ?? '')
        .trim()
        .slice(0, FIELD_MAX),
    ]),
  );
};

/** The signup the form describes, or the errors of its fields (in the list's own words for each). */
const readSignup = (
  list: TFormList,
  body: TSignupForm,
): { signup: Omit<TSignup, 'consent'> } | { errors: Record<string, string> } => {
  const values = formValues(list, body);
  const errors: Record<string, string> = {};
  const email = values.email ? canonicalEmail(values.email) : null;
  if (!values.email) errors.email = 'Please enter your email address.';
  else if (!email) errors.email = LIST_MESSAGES.emailInvalid;
  const { first_name: firstMode, last_name: lastMode, custom } = list.form_fields;
  const firstName = firstMode === 'hidden' ? '' : values.first_name!.slice(0, NAME_MAX);
  const lastName = lastMode === 'hidden' ? '' : values.last_name!.slice(0, NAME_MAX);
  if (firstMode === 'required' && !firstName) errors.first_name = 'Please enter your first name.';
  if (lastMode === 'required' && !lastName) errors.last_name = 'Please enter your last name.';
  const fields: Record<string, string> = {};
  if (firstName) fields.first_name = firstName;
  if (lastName) fields.last_name = lastName;
  for (const field of custom) {
    const value = values[field.key] ?? '';
    if (field.required && !value) errors[field.key] = `Please fill in ${field.label}.`;
    if (value) fields[field.key] = value;
  }
  if (Object.keys(errors).length > 0 || !email) return { errors };
  return { signup: { email, fullname: [firstName, lastName].filter(Boolean).join(' '), fields } };
};

/** Which form the signup came through, as its consent record names it. */
const formDetail = (body: TSignupForm) => {
  if (body.form === 'hosted') return 'hosted form';
  const page = String(body.page ?? '').slice(0, 150);
  return page ? `embedded form on ${page}` : 'embedded form';
};

const tooMany = (minutes: number) =>
  `Too many signups from here just now. Please try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;

/**
 * A visitor's signup. In order: the honeypot (filled: the thanks page, nothing done, so a
 * robot learns nothing), the fields, the captcha (missing: the form again with the widget,
 * which is where an embedded form's plain post lands), the client's limit, the captcha's
 * proof (spent once), the list's limit (counted only for signups that passed the captcha,
 * so robots cannot use up a list's signups), then the signup and its confirmation email in
 * one transaction. The answer never says whether the address was on the list already.
 */
export const submitSignup = async (
  platform: TPlatform,
  list: TFormList,
  body: TSignupForm,
  client: { ip: string; userAgent: string | null },
): Promise<TSignupAnswer> => {
  if (String(body[HONEYPOT_FIELD] ?? '') !== '') {
    platform.log.info({ listId: list.id }, 'signup refused: the honeypot was filled');
    return { kind: 'done' };
  }
  const read = readSignup(list, body);
  if ('errors' in read) return { kind: 'form', errors: read.errors, status: 422 };
  const altcha = String(body.altcha ?? '');
  if (!altcha) {
    return {
      kind: 'form',
      errors: {},
      status: 200,
      message: 'One more step: check the details and press Subscribe.',
    };
  }
  const perIp = await consumeRateLimit(platform.db, `signup:ip:${client.ip}`, SIGNUP_LIMITS.perIpPerHour, 3600);
  if (!perIp.isAllowed) {
    return { kind: 'form', errors: {}, status: 429, message: tooMany(Math.ceil(perIp.retryAfterSeconds / 60)) };
  }
  try {
    await consumeSolution(platform, platform.db, altcha);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return {
      kind: 'form',
      errors: { altcha: 'The check that you are not a robot did not pass. Please try again.' },
      status: 422,
    };
  }
  const perList = await consumeRateLimit(platform.db, `signup:list:${list.id}`, SIGNUP_LIMITS.perListPerHour, 3600);
  if (!perList.isAllowed) {
    return { kind: 'form', errors: {}, status: 429, message: tooMany(Math.ceil(perList.retryAfterSeconds / 60)) };
  }
  const outcome = await platform.db.transaction().execute(async (trx) => {
    const outcome = await subscribeMember(
      platform,
      trx,
      list,
      {
        ...read.signup,
        consent: {
          source: 'form',
          detail: formDetail(body),
          ip: client.ip,
          userAgent: client.userAgent,
          text: list.consent_text,
        },
      },
      { source: 'form' },
    );
    if (outcome.kind !== 'confirm') return outcome;
    const sendId = await sendConfirmation(platform, trx, list, read.signup, outcome.token);
    await recordConfirmationSend(trx, outcome.consentId, sendId);
    return outcome;
  });
  // A new member is found by the member table's search (its terms indexed after the commit).
  if (outcome.kind !== 'already') {
    await queueSearchIndexing(platform, list.id).catch((error: unknown) =>
      platform.log.error({ err: error }, 'could not queue member search indexing'),
    );
  }
  return { kind: 'done' };
};

/** The address that confirms a signup. */
export const confirmUrl = (platform: TPlatform, token: string) => `${publicUrl(platform)}/subscribe/confirm/${token}`;

/**
 * The confirmation email, through the list's own sending account and the engine, like
 * every message Sendwell sends (issue 48 §1 left the choice open; the reasons):
 * - the person asked the list's sender, so the email comes from the list's address, signed
 *   by the sender's domain, not from the operator's system address, which they never met;
 * - the engine gives it what every message gets: suppressions (a hard-bounced or complained
 *   address gets no confirmation either), the account's daily cap, bounce and complaint
 *   intake, one-click unsubscribe and a record in the delivery events;
 * - a form flooded with strangers' addresses costs the sender's reputation, not the
 *   operator's (shared by every user), and the per-list limit and the cool-down bound it;
 * - it works on a first run: through the test inbox, with no `SMTP_URL`.
 * Opens and clicks are not tracked: the link must reach the confirmation page as it is.
 */
export const sendConfirmation = async (
  platform: TPlatform,
  trx: Executor,
  list: TFormList,
  signup: Omit<TSignup, 'consent'>,
  token: string,
) => {
  const { sendId } = await createSourcedSend(trx, platform, list.user_id, {
    source: 'confirmation',
    accountId: list.account_id,
    fromName: list.name,
    fromAddress: list.address,
    subject: list.confirmation_subject || SIGNUP_DEFAULTS.confirmationSubject,
    html: list.confirmation_html || SIGNUP_DEFAULTS.confirmationHtml,
    trackOpens: false,
    trackClicks: false,
    recipients: [
      {
        email: signup.email,
        name: signup.fullname,
        fields: { ...signup.fields, list_name: list.name, [CONFIRM_URL_FIELD]: confirmUrl(platform, token) },
      },
    ],
  });
  return sendId;
};

/** What a confirmation link's page shows before the button is pressed (it changes nothing). */
export const inspectConfirmation = (platform: TPlatform, token: string) => findConfirmation(platform.db, token);

/** The button of the confirmation page: the member is subscribed from now on. */
export const confirmSignup = (platform: TPlatform, token: string, ip: string) =>
  platform.db.transaction().execute((trx) => confirmSubscription(platform, trx, token, ip));

/** A confirmation token has this form (`randomToken`); anything else is looked up nowhere. */
export const isConfirmationToken = (token: string) => /^[A-Za-z0-9_-]{43}$/.test(token);

// --- the preferences page ---

/** Who a preferences link names, and the lists of the sender (the email's account) the address is on. */
export const findPreferences = async (platform: TPlatform, token: string) => {
  const recipient = await findRecipientByRef(platform, 'preferences', token);
  if (!recipient || recipient.account_id === null) return null;
  const lists = await membershipsOnAccount(platform.db, recipient.user_id, recipient.account_id, recipient.email);
  return { recipient, lists };
};

export type TPreferencesAction =
  | { action: 'leave'; listId: number }
  | { action: 'leave-all' }
  | { action: 'rename'; name: string };

/**
 * The person changes their subscriptions from the preferences page: leaves one list, all
 * of the sender's lists (recorded on the message as an unsubscribe, like the footer's
 * link), or renames themself on them. Answers the notice the page shows after.
 */
export const changePreferences = async (platform: TPlatform, token: string, change: TPreferencesAction) => {
  const found = await findPreferences(platform, token);
  if (!found) return null;
  const { recipient, lists } = found;
  return platform.db.transaction().execute(async (trx) => {
    switch (change.action) {
      case 'leave': {
        const membership = lists.find((list) => Number(list.list_id) === change.listId);
        if (!membership) throw new HttpError(404, 'You are not on this list.', 'NOT_FOUND');
        await unsubscribeMembers(
          platform,
          trx,
          recipient.user_id,
          { memberIds: [Number(membership.member_id)] },
          'preferences',
        );
        return `You are unsubscribed from ${membership.list_name}.`;
      }
      case 'leave-all': {
        await unsubscribeMembers(
          platform,
          trx,
          recipient.user_id,
          { memberIds: lists.map((list) => Number(list.member_id)) },
          'preferences',
        );
        await applyOutcomes(platform, trx, [
          {
            recipient: {
              id: recipient.id,
              send_id: recipient.send_id,
              email: recipient.email,
              user_id: recipient.user_id,
              account_id: recipient.account_id,
            },
            userId: recipient.user_id,
            accountId: recipient.account_id,
            email: recipient.email,
            type: 'unsubscribed',
            source: 'recipient',
            // The footer's unsubscribe link records the same event: once, whichever came first.
            providerEventId: `unsubscribe:${recipient.id}`,
          },
        ]);
        return 'You are unsubscribed from all of these lists.';
      }
      case 'rename': {
        await renameMembers(
          trx,
          recipient.user_id,
          lists.map((list) => list.member_id),
          change.name,
        );
        return 'Your name is saved.';
      }
    }
  });
};
