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

/** A 422 with the spec's shape: field → messages; the web app toasts the first of each. */
export class ValidationError extends Error {
  constructor(readonly errors: Record<string, string[]>) {
    super(Object.values(errors)[0]?.[0] ?? 'The given data was invalid.');
  }
}

export const notFound = (what = 'Not found.') => new HttpError(404, what, 'NOT_FOUND');
export const unauthenticated = () => new HttpError(401, 'Unauthenticated.', 'UNAUTHENTICATED');
export const fieldError = (field: string, message: string) => new ValidationError({ [field]: [message] });
