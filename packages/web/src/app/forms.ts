import { useEffect, useRef } from 'react';
import type { TFormErrors } from './useZodForm';

type TIssue = { path: readonly PropertyKey[]; message: string };

/** A zod result's first message per top-level field, shaped like the server's 422 `errors` after `fieldErrors`. */
export const firstIssueByField = (issues: readonly TIssue[]): Record<string, string> => {
  const fields: Record<string, string> = {};
  for (const issue of issues) {
    const field = String(issue.path[0] ?? '');
    fields[field] ??= issue.message;
  }
  return fields;
};

/** A zod result's first message per field, keyed by its whole path (`drips.0.subject`) as the server's 422 keys it. */
export const firstIssueByPath = (issues: readonly TIssue[]): Record<string, string> => {
  const fields: Record<string, string> = {};
  for (const issue of issues) fields[issue.path.map(String).join('.')] ??= issue.message;
  return fields;
};

/** Focus on mount, for the first field of a page whose only job is that form. */
export const useAutofocus = <T extends HTMLElement>() => {
  const ref = useRef<T>(null);
  useEffect(() => {
    ref.current?.focus();
  }, []);
  return ref;
};

/**
 * A new password's confirmation (reset password, profile), compared once the password itself
 * passes, both trimmed as the server trims them.
 */
export const checkPasswordConfirmation = (
  values: { password: string; confirmation: string },
  errors: TFormErrors,
): TFormErrors =>
  !errors.password && values.password.trim() !== values.confirmation.trim()
    ? { confirmation: 'The passwords do not match.' }
    : {};
