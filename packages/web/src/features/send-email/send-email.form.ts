import {
  AB_TEST_LIMITS,
  abSplitSizes,
  abTestIssues,
  deliverySlots,
  describeWait,
  earliestDeliveryTime,
  formatDeliveryTime,
  senderAddress,
  senderDomain,
  sendFormIssues,
  sendsAsSenderNameOnly,
  type TAccountKind,
  type TEmailDocument,
  type TSendAccount,
  type TSendEmailForm,
  type TSendList,
  wallClock,
  ZSendEmailRequest,
} from '@sendwell/contracts';
import { firstIssueByField } from '../../app/forms';

/** What the form holds; the request is built from it on submit. */
export type TSendFormValues = {
  account: string;
  senderName: string;
  alias: string;
  useSubdomain: boolean;
  /** The chosen mailing lists' ids (the request's `to`). */
  to: string[];
  template: string | null;
  subject: string;
  cc: string;
  bcc: string;
  reply: string;
  message: string;
  /** The builder's document the message was rendered from; null for HTML written by hand (issue 46). */
  document: TEmailDocument | null;
  /** `YYYY-MM-DD` in the user's time zone, or null to send now. */
  deliveryDate: string | null;
  /** `HH:mm` (24-hour), one of `deliverySlots()`. */
  deliverySlot: string | null;
  trackOpens: boolean;
  trackClicks: boolean;
  /** An A/B subject test (issue 31 §4): `subject` is A. */
  abTest: boolean;
  subjectB: string;
  subjectC: string;
  /** Whether the form shows Subject C (a third subject). */
  hasSubjectC: boolean;
  abTestPercent: number | string;
  /** The wait before the winner is chosen, in `abWaitUnit`s (decimals allowed). */
  abWaitValue: number | string;
  abWaitUnit: 'minutes' | 'hours';
  abMetric: 'opens' | 'clicks';
};

export type TSendField = keyof TSendEmailForm;
export type TFieldErrors = Partial<Record<TSendField, string>>;

export const initialSendFormValues = (accountId: number | null): TSendFormValues => ({
  account: accountId === null ? '' : String(accountId),
  senderName: '',
  alias: '',
  useSubdomain: false,
  to: [],
  template: null,
  subject: '',
  cc: '',
  bcc: '',
  reply: '',
  message: '',
  document: null,
  deliveryDate: null,
  deliverySlot: null,
  trackOpens: true,
  trackClicks: true,
  abTest: false,
  subjectB: '',
  subjectC: '',
  hasSubjectC: false,
  abTestPercent: AB_TEST_LIMITS.defaultPercent,
  abWaitValue: AB_TEST_LIMITS.defaultWaitMinutes / 60,
  abWaitUnit: 'hours',
  abMetric: 'opens',
});

/** The order fields appear in, so the first error focused is the first one the user meets. */
export const FIELD_ORDER: TSendField[] = [
  'account',
  'senderName',
  'alias',
  'from',
  'to',
  'subject',
  'cc',
  'bcc',
  'reply',
  'message',
  'abTest',
  'subjectB',
  'subjectC',
  'abTestPercent',
  'abWaitMinutes',
  'abMetric',
  'delivery',
];

/** The id of each field's input, for focusing the first error. */
export const fieldId = (field: TSendField) => `send-email-${field}`;

/** The send form's fields that hold typed text, and are fields of the request too. */
type TTextField = {
  [K in keyof TSendFormValues & TSendField]: string extends TSendFormValues[K] ? K : never;
}[keyof TSendFormValues & TSendField];

/**
 * A text input's props for one field of the send form: the id the first error is focused by,
 * its value and message, and the change that clears the message.
 */
export const textFieldProps = <K extends TTextField>(
  field: K,
  values: Pick<TSendFormValues, K>,
  errors: TFieldErrors,
  onChange: (patch: Partial<TSendFormValues>) => void,
) => ({
  id: fieldId(field),
  value: values[field],
  error: errors[field],
  onChange: (event: { currentTarget: { value: string } }) => onChange({ [field]: event.currentTarget.value }),
});

const SLOT_LABELS = new Map(deliverySlots().map((slot) => [slot.value, slot.label]));

/**
 * The picker's date and time as the form sends it, `YYYY-MM-DD hh:mm A`; blank sends now. Half
 * a choice is sent as it is, so the check says which half is missing rather than sending now.
 */
export const deliveryTimeOf = ({
  deliveryDate,
  deliverySlot,
}: Pick<TSendFormValues, 'deliveryDate' | 'deliverySlot'>) =>
  [deliveryDate, deliverySlot ? (SLOT_LABELS.get(deliverySlot) ?? deliverySlot) : null].filter(Boolean).join(' ');

export const hasDeliveryTime = (values: Pick<TSendFormValues, 'deliveryDate' | 'deliverySlot'>) =>
  Boolean(values.deliveryDate || values.deliverySlot);

/**
 * The sending account and sender of a request (a send, a spam test): `from` as the server
 * will build it, with its parts beside it so the server names a mistake on its own field.
 * Sender-name-only accounts have no alias, so none is sent.
 */
export const toSenderRequest = (
  values: TSendFormValues,
  { provider, domain }: Pick<TSendContext, 'provider' | 'domain'>,
) => {
  const nameOnly = sendsAsSenderNameOnly(provider);
  const sender = {
    senderName: values.senderName,
    alias: nameOnly ? '' : values.alias,
    useSubdomain: nameOnly ? false : values.useSubdomain,
  };
  return { account: Number(values.account), from: senderAddress({ provider, domain, ...sender }), ...sender };
};

/**
 * `POST /api/email/send`'s body under the spec's names (`from`, `to`, `reply`, `delivery`,
 * `sendLater`), its sender as toSenderRequest has it.
 */
export const toSendRequest = (
  values: TSendFormValues,
  { provider, domain }: Pick<TSendContext, 'provider' | 'domain'>,
) => {
  return {
    ...toSenderRequest(values, { provider, domain }),
    to: values.to.map(Number),
    subject: values.subject,
    cc: values.cc,
    bcc: values.bcc,
    reply: values.reply,
    message: values.message,
    document: values.document,
    // An A/B test is sent now: a time picked before it was switched on is not sent with it.
    delivery: values.abTest ? '' : deliveryTimeOf(values),
    sendLater: !values.abTest && hasDeliveryTime(values),
    trackOpens: values.trackOpens,
    trackClicks: values.trackClicks,
    abTest: values.abTest,
    // Only an A/B test sends its fields (the server's defaults stand otherwise).
    ...(values.abTest
      ? {
          subjectB: values.subjectB,
          subjectC: values.hasSubjectC ? values.subjectC : '',
          abTestPercent: values.abTestPercent === '' ? Number.NaN : Number(values.abTestPercent),
          abWaitMinutes: abWaitMinutesOf(values),
          abMetric: values.abMetric,
        }
      : {}),
  };
};

/** The A/B test's wait in minutes, as the request carries it (NaN when blank: the check names it). */
export const abWaitMinutesOf = (values: Pick<TSendFormValues, 'abWaitValue' | 'abWaitUnit'>) =>
  values.abWaitValue === '' ? Number.NaN : Number(values.abWaitValue) * (values.abWaitUnit === 'hours' ? 60 : 1);

export type TSendContext = {
  provider: TAccountKind;
  /** The account's sending domain (empty for SMTP and Gmail). */
  domain: string;
  allowsScheduling: boolean;
  timeZone: string;
  now?: Date;
};

export type TValidation = { ok: true; request: TSendEmailForm } | { ok: false; errors: TFieldErrors };

/** The form's checks, the same the server makes: the schema, then what the account's kind and the plan require. */
export const validateSendForm = (values: TSendFormValues, context: TSendContext): TValidation => {
  const request = toSendRequest(values, context);
  const parsed = ZSendEmailRequest.safeParse(request);
  const errors: TFieldErrors = parsed.success ? {} : (firstIssueByField(parsed.error.issues) as TFieldErrors);
  const issues = sendFormIssues(
    { senderName: values.senderName, alias: values.alias, delivery: request.delivery, sendLater: request.sendLater },
    context,
  );
  for (const issue of issues) errors[issue.path as TSendField] ??= issue.message;
  const abIssues = abTestIssues({
    subject: values.subject,
    abTest: values.abTest,
    subjectB: values.subjectB,
    subjectC: values.hasSubjectC ? values.subjectC : '',
    abMetric: values.abMetric,
    trackOpens: values.trackOpens,
    trackClicks: values.trackClicks,
    isSendLater: request.sendLater,
  });
  for (const issue of abIssues) errors[issue.path as TSendField] ??= issue.message;
  if (parsed.success && Object.keys(errors).length === 0) return { ok: true, request: parsed.data };
  return { ok: false, errors };
};

export const firstErrorField = (errors: TFieldErrors) => FIELD_ORDER.find((field) => errors[field]);

/** Each field's first message from a 422, limited to the fields this form shows. */
export const toFieldErrors = (errors: Record<string, string>): TFieldErrors =>
  Object.fromEntries(Object.entries(errors).filter(([field]) => FIELD_ORDER.includes(field as TSendField)));

/**
 * The errors without those of `fields`; the same object when none of them had one, so a
 * keystroke in a field without an error re-renders nothing that reads only the errors.
 */
export const withoutErrorsOf = (errors: TFieldErrors, fields: readonly string[]): TFieldErrors =>
  fields.some((field) => field in errors)
    ? Object.fromEntries(Object.entries(errors).filter(([field]) => !fields.includes(field)))
    : errors;

/** The fields the sender's line and the From section read (`SenderFields` re-renders only when they change). */
export const SENDER_FIELDS = ['account', 'senderName', 'alias', 'useSubdomain'] as const;
export type TSenderValues = Pick<TSendFormValues, (typeof SENDER_FIELDS)[number]>;

/** What recipients see in their From line (spec §4): SMTP and Gmail send from the account's own address. */
export const fromLine = (values: TSenderValues, account: TSendAccount | undefined) => {
  if (!account) return '';
  if (sendsAsSenderNameOnly(account.provider)) {
    const name = values.senderName.trim();
    return name ? `${name} <${account.fromAddress}>` : account.fromAddress;
  }
  return senderAddress({
    provider: account.provider,
    senderName: values.senderName,
    alias: values.alias,
    domain: account.domain,
    useSubdomain: values.useSubdomain,
  });
};

/** Whether the subdomain rule would drop the domain's first label: only then is the choice worth offering. */
export const offersSubdomain = (domain: string) => senderDomain(domain, false) !== senderDomain(domain, true);

export const listLabel = (list: TSendList) =>
  `${list.name} · ${list.address} (${list.subscribed.toLocaleString('en-US')} subscribed)`;

const pad = (value: number) => String(value).padStart(2, '0');

/** Today in the user's time zone, `YYYY-MM-DD`: the first day the picker offers. */
export const todayIn = (timeZone: string, now: Date = new Date()) => {
  const clock = wallClock(now, timeZone);
  return `${clock.year}-${pad(clock.month)}-${pad(clock.day)}`;
};

/** The picker's times for a day: on today, the ones already gone are disabled. */
export const slotsFor = (date: string | null, timeZone: string, now: Date = new Date()) => {
  const slots = deliverySlots();
  if (date !== todayIn(timeZone, now)) return slots;
  const earliest = wallClock(earliestDeliveryTime(now), timeZone);
  const earliestDay = formatDeliveryTime(earliestDeliveryTime(now), timeZone).slice(0, 10);
  // Past 23:30, or rounding up crossed midnight: nothing is left today.
  if (earliestDay !== date) return slots.map((slot) => ({ ...slot, disabled: true }));
  const earliestMinutes = earliest.hour * 60 + earliest.minute;
  return slots.map((slot) => {
    const [hour, minute] = slot.value.split(':').map(Number) as [number, number];
    return { ...slot, disabled: hour * 60 + minute < earliestMinutes };
  });
};

/** The confirmation's line for an A/B test: the subjects, the split of this many recipients, the wait and the metric. */
export const abTestSummary = (values: TSendFormValues, recipients: number) => {
  const subjects = values.hasSubjectC && values.subjectC.trim() ? 3 : 2;
  const { perPart, rest } = abSplitSizes(recipients, Number(values.abTestPercent), subjects);
  return `${subjects} subjects, ${perPart.toLocaleString('en-US')} ${perPart === 1 ? 'recipient' : 'recipients'} each now; after ${describeWait(
    abWaitMinutesOf(values),
  )} the better ${values.abMetric === 'opens' ? 'open' : 'click'} rate goes to the other ${rest.toLocaleString('en-US')}.`;
};
