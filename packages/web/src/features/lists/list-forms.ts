import { LIST_MESSAGES } from '@sendwell/contracts';
import { ApiError } from '../../app/api';
import { fieldErrors, showError } from '../../app/errors';
import { showSuccess } from '../../app/toasts';

/** What a refused list or member form shows: each field's message beside it, and one above the form. */
export type TFormFailure = { fields: Record<string, string>; message: string | null };

export const NO_FAILURE: TFormFailure = { fields: {}, message: null };

/**
 * How a failed save is shown: a 422 as the spec's 'Please fill the form correctly!' with each
 * field's message beside it, a refusal (a list with that address exists, the address is already
 * on the list) as its message. Anything else goes to the error dialog.
 */
export const formFailureOf = (error: unknown): TFormFailure | null => {
  if (!(error instanceof ApiError) || error.status === 401) {
    showError(error);
    return null;
  }
  if (error.status === 422) return { fields: fieldErrors(error), message: LIST_MESSAGES.formInvalid };
  return { fields: {}, message: error.message };
};

/** A list or member dialog's save: on success a toast and the dialog closes; a refusal lands on the form. */
export const saveOptions = (onClose: () => void, setFailure: (failure: TFormFailure) => void) => ({
  onSuccess: ({ message }: { message: string }) => {
    showSuccess(message);
    onClose();
  },
  onError: (error: unknown) => {
    const failure = formFailureOf(error);
    if (failure) setFailure(failure);
  },
});
