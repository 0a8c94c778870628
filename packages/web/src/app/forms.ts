import { useEffect, useRef } from 'react';

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
