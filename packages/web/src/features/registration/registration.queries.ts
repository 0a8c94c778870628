import { registrationApi, type TRegisterRequest } from '@sendwell/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { callRoute, resetCsrfToken } from '../../app/api';
import { refreshSession } from '../../app/session';

/** The spec's registration fields, all as a form sends them (empty string for "not given"). */
export type TRegistrationForm = Required<TRegisterRequest>;

const toFormData = (fields: TRegistrationForm): FormData => {
  const form = new FormData();
  for (const [field, value] of Object.entries(fields)) form.append(field, value);
  return form;
};

/** Registering signs the new user in: the server sets the session cookie with its answer. */
export const useRegister = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (fields: TRegistrationForm) => callRoute(registrationApi.register, { body: toFormData(fields) }),
    onSuccess: async () => {
      // As after sign-in: a new session, and the old token was bound to the old one.
      resetCsrfToken();
      // The account exists whatever happens next: a failed user load must not read as a failed
      // registration (trying again would say the email is taken). The signed-in guard retries it.
      await refreshSession(queryClient).catch(() => undefined);
    },
    // The form shows field, card, captcha and rate-limit failures beside what caused them.
    meta: { reportErrors: false },
  });
};
