/** An error whose message is meant for the user, with the HTTP status it answers with. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly code?: string,
    /** What the page needs to show the error (the spec's `errorData`, e.g. an ERR_LIMIT dialog). */
    readonly errorData?: unknown,
  ) {
    super(message);
  }
}

/**
 * What a domain rule refuses, by kind, whoever asked: an HTTP route or a job. A job tests the
 * kind (`isDomainError`), never an HTTP code string; the HTTP answer of each kind is written
 * once, in `DOMAIN_ANSWERS`, and a route answers it as it answers any HttpError.
 */
export type TDomainErrorKind = 'upgrade-required';

/** The HTTP answer of each kind of domain refusal. */
const DOMAIN_ANSWERS: Record<TDomainErrorKind, { statusCode: number; code: string }> = {
  // The user's plan does not allow it (sending accounts, R23): the page offers the upgrade.
  'upgrade-required': { statusCode: 403, code: 'UPGRADE_REQUIRED' },
};

export class DomainError extends HttpError {
  constructor(
    readonly kind: TDomainErrorKind,
    message: string,
    errorData?: unknown,
  ) {
    super(DOMAIN_ANSWERS[kind].statusCode, message, DOMAIN_ANSWERS[kind].code, errorData);
  }
}

export const isDomainError = (error: unknown, kind: TDomainErrorKind): error is DomainError =>
  error instanceof DomainError && error.kind === kind;

/** A 422 with the spec's shape: field → messages; the web app toasts the first of each. */
export class ValidationError extends Error {
  constructor(readonly errors: Record<string, string[]>) {
    super(Object.values(errors)[0]?.[0] ?? 'The given data was invalid.');
  }
}

export const notFound = (what = 'Not found.') => new HttpError(404, what, 'NOT_FOUND');
export const unauthenticated = () => new HttpError(401, 'Unauthenticated.', 'UNAUTHENTICATED');
export const fieldError = (field: string, message: string) => new ValidationError({ [field]: [message] });
