import { contactApi, type TContactRequest } from '@sendwell/contracts';
import { useMutation } from '@tanstack/react-query';
import { callRoute } from '../../app/api';

/** Public: visitors ask before they have an account. */
export const useContactUs = () =>
  useMutation({
    mutationFn: (request: TContactRequest) => callRoute(contactApi.contactUs, { body: request }),
    // The form shows field errors and rate limits itself.
    meta: { reportErrors: false },
  });
