import type { TContactRequest, TStatusMessage } from '@sendwell/contracts';
import { useMutation } from '@tanstack/react-query';
import { api } from '../../app/api';

/** Public: visitors ask before they have an account. */
export const useContactUs = () =>
  useMutation({
    mutationFn: (request: TContactRequest) => api.post<TStatusMessage>('/api/contact-us', request),
    // The form shows field errors and rate limits itself.
    meta: { reportErrors: false },
  });
