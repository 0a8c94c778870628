import { sendFormIssues, type TSpamTestRequest, ZSpamTestRequest } from '@sendwell/contracts';
import { firstIssueByField } from '../../app/forms';
import {
  type TFieldErrors,
  type TSendContext,
  type TSendField,
  type TSendFormValues,
  toSenderRequest,
} from '../send-email/send-email.form';

/** `POST /api/tools/mail-testing/send`'s body from the Send Email form's values (its message is `mail_body`). */
export const toSpamTestRequest = (
  values: TSendFormValues,
  { provider, domain }: Pick<TSendContext, 'provider' | 'domain'>,
): TSpamTestRequest => {
  return {
    ...toSenderRequest(values, { provider, domain }),
    subject: values.subject,
    mail_body: values.message,
  };
};

/** Server field names → the form's (the message is `mail_body` on the wire). */
export const spamTestFieldErrors = (errors: Record<string, string>): TFieldErrors =>
  Object.fromEntries(
    Object.entries(errors).map(([field, message]) => [field === 'mail_body' ? 'message' : field, message]),
  ) as TFieldErrors;

/**
 * The spam test's checks (spec §5): an account, the sender name for SMTP and Gmail or the
 * alias otherwise, a subject and a message; no recipients and no delivery time.
 */
export const validateSpamTestForm = (
  values: TSendFormValues,
  context: TSendContext,
): { ok: true; request: TSpamTestRequest } | { ok: false; errors: TFieldErrors } => {
  const request = toSpamTestRequest(values, context);
  const parsed = ZSpamTestRequest.safeParse(request);
  const errors = parsed.success ? {} : spamTestFieldErrors(firstIssueByField(parsed.error.issues));
  const issues = sendFormIssues({ senderName: values.senderName, alias: values.alias, delivery: '' }, context);
  for (const issue of issues) errors[issue.path as TSendField] ??= issue.message;
  if (Object.keys(errors).length === 0) return { ok: true, request };
  return { ok: false, errors };
};
