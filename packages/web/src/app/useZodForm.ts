import { type ChangeEvent, type FormEvent, useCallback, useMemo, useRef, useState } from 'react';
import type { z } from 'zod';
import { ApiError } from './api';
import { fieldErrors, showError } from './errors';
import { firstIssueByField, firstIssueByPath } from './forms';

/** Messages keyed by field: the schema's, the page's own checks', or the server's 422 `errors`. */
export type TFormErrors = Record<string, string>;

type TTextValues<S extends z.ZodType> = z.input<S> & Record<string, unknown>;

type TOptions<S extends z.ZodType> = {
  initialValues: z.input<S>;
  /**
   * Checks the schema cannot make (fields kept outside the values, rules across fields), given
   * the schema's messages so far; what it answers is added to them and wins over them.
   */
  validate?: (values: z.input<S>, errors: TFormErrors) => TFormErrors;
  /** Called when the client-side checks fail, with every message. */
  onInvalid?: (errors: TFormErrors) => void;
  /**
   * Server statuses whose message belongs to the form (shown as `formError`, an alert in the
   * form) rather than to a dialog over it: wrong credentials (401), rate limits (429).
   */
  refusalStatuses?: readonly number[];
  /**
   * Key each message by its field's whole path (`drips.0.subject`), as the server's 422 does,
   * rather than by the top-level field: for forms whose values hold lists of items.
   */
  isNested?: boolean;
  /**
   * The messages that still stand now that the values moved on from those they were found
   * in (`checked`): a message can go as soon as its field changes, and follow its item when
   * items before it are added or removed. Without it, messages stay until the next submit.
   */
  holdErrors?: (errors: TFormErrors, checked: z.input<S>, now: z.input<S>) => TFormErrors;
  /** A 422's field name as the form's (the request wraps or renames the values); null drops it. */
  serverField?: (field: string) => string | null;
  /**
   * The parsed request (the schema's output), the values as typed, and `fail` for the
   * mutation's `onError`.
   */
  onSubmit: (
    request: z.output<S>,
    form: { values: z.input<S>; fail: (error: unknown) => void },
  ) => void | Promise<void>;
};

/**
 * The state and error plumbing every public form shares, over one zod schema (usually the
 * request's own, from contracts): values, a message per field, a form-level message.
 *
 * Submitting clears the form-level message, checks the values (the first message per field)
 * and calls `onSubmit` with the parsed request only when they pass. `fail(error)`, for the
 * mutation's `onError`, puts a 422's field errors beside their fields (its message as the
 * form-level error when it names none), a refusal status's message at the form level, and
 * anything else through the app's error catalogue (`showError`).
 */
export const useZodForm = <S extends z.ZodType>(schema: S, options: TOptions<S>) => {
  const [values, setValues] = useState<z.input<S>>(options.initialValues);
  // The messages, with the values they were found in (for `holdErrors`).
  const [checked, setChecked] = useState<{ errors: TFormErrors; against: z.input<S> }>({
    errors: {},
    against: options.initialValues,
  });
  const [formError, setFormError] = useState<string | null>(null);
  const latest = useRef(values);
  latest.current = values;
  const { holdErrors } = options;
  const errors = useMemo(
    () => (holdErrors ? holdErrors(checked.errors, checked.against, values) : checked.errors),
    [holdErrors, checked, values],
  );
  /** Sets the messages (or changes those shown), found in the values as they are now. */
  const setErrors = useCallback(
    (next: TFormErrors | ((current: TFormErrors) => TFormErrors)) =>
      setChecked((previous) => {
        const shown = holdErrors ? holdErrors(previous.errors, previous.against, latest.current) : previous.errors;
        return { errors: typeof next === 'function' ? next(shown) : next, against: latest.current };
      }),
    [holdErrors],
  );

  const setValue = <K extends keyof z.input<S>>(field: K, value: z.input<S>[K]) =>
    setValues((current) => ({ ...(current as object), [field]: value }) as z.input<S>);

  /** `name`, `value`, `error` and `onChange` for a text input, textarea or password field. */
  const inputProps = <K extends keyof z.input<S> & string>(field: K) => ({
    name: field,
    value: (values as TTextValues<S>)[field] as string,
    error: errors[field],
    onChange: (event: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) =>
      setValue(field, event.currentTarget.value as z.input<S>[K]),
  });

  const fail = (error: unknown) => {
    if (error instanceof ApiError && error.status === 422) {
      const fields = serverFieldErrors(fieldErrors(error), options.serverField);
      setErrors(fields);
      if (Object.keys(fields).length === 0) setFormError(error.message);
    } else if (error instanceof ApiError && options.refusalStatuses?.includes(error.status)) {
      setFormError(error.message);
    } else {
      showError(error);
    }
  };

  const onSubmit = (event?: FormEvent<HTMLFormElement>) => {
    event?.preventDefault();
    setFormError(null);
    const parsed = schema.safeParse(values);
    const issues = parsed.success ? {} : (options.isNested ? firstIssueByPath : firstIssueByField)(parsed.error.issues);
    const problems = { ...issues, ...options.validate?.(values, issues) };
    setErrors(problems);
    if (!parsed.success || Object.keys(problems).length > 0) {
      options.onInvalid?.(problems);
      return;
    }
    void options.onSubmit(parsed.data, { values, fail });
  };

  return { values, setValues, setValue, inputProps, errors, setErrors, formError, setFormError, onSubmit, fail };
};

export type TZodForm<S extends z.ZodType> = ReturnType<typeof useZodForm<S>>;

/** A 422's messages under the form's own field names. */
const serverFieldErrors = (fields: TFormErrors, rename: ((field: string) => string | null) | undefined) => {
  if (!rename) return fields;
  const renamed: TFormErrors = {};
  for (const [field, message] of Object.entries(fields)) {
    const name = rename(field);
    if (name !== null) renamed[name] ??= message;
  }
  return renamed;
};
