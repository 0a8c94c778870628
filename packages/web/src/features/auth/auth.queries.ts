import {
  authApi,
  type TForgotPasswordRequest,
  type TLoginRequest,
  type TResetPasswordRequest,
} from '@sendwell/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { callRoute, resetCsrfToken } from '../../app/api';
import { isUnauthorized } from '../../app/errors';
import { realtime } from '../../app/realtime';
import { endSession, startSession } from '../../app/session';

/** Signing in sets the user; the guest guard then moves the tab on to where it was going. */
export const useLogin = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (credentials: TLoginRequest) => callRoute(authApi.login, { body: credentials }),
    onSuccess: ({ data }) => {
      // The server issues a new session on sign-in, and the old token was bound to the old one.
      resetCsrfToken();
      startSession(queryClient, data);
    },
    // The form shows wrong credentials, rate limits and field errors beside the fields.
    meta: { reportErrors: false },
  });
};

/**
 * A mutation that ends this tab's session (Sign out, Sign out everywhere). The socket is paused
 * first, so the server's word that this session ended is not taken for an expired one; it
 * resumes if the session did not end after all.
 */
export const useEndSessionMutation = <TAnswer>(end: () => Promise<TAnswer>) => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: end,
    onMutate: () => realtime.pause(),
    onSuccess: () => {
      resetCsrfToken();
      endSession(queryClient);
    },
    onError: (error) => {
      if (!isUnauthorized(error)) realtime.resume();
    },
  });
};

export const useSignOut = () => useEndSessionMutation(() => callRoute(authApi.logout));

export const useForgotPassword = () =>
  useMutation({
    mutationFn: (request: TForgotPasswordRequest) => callRoute(authApi.forgotPassword, { body: request }),
    meta: { reportErrors: false },
  });

export const useResetPassword = () =>
  useMutation({
    mutationFn: (request: TResetPasswordRequest) => callRoute(authApi.resetPassword, { body: request }),
    meta: { reportErrors: false },
  });
