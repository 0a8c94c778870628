import type {
  TForgotPasswordRequest,
  TLoginRequest,
  TResetPasswordRequest,
  TStatusMessage,
  TUserInformation,
} from '@sendwell/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, resetCsrfToken } from '../../app/api';
import { isUnauthorized } from '../../app/errors';
import { realtime } from '../../app/realtime';
import { endSession, startSession } from '../../app/session';

/** Signing in sets the user; the guest guard then moves the tab on to where it was going. */
export const useLogin = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (credentials: TLoginRequest) =>
      api.post<{ status: true; data: TUserInformation }>('/api/login', credentials),
    onSuccess: ({ data }) => {
      // The server issues a new session on sign-in, and the old token was bound to the old one.
      resetCsrfToken();
      startSession(queryClient, data);
    },
    // The form shows wrong credentials, rate limits and field errors beside the fields.
    meta: { reportErrors: false },
  });
};

export const useSignOut = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.post<TStatusMessage>('/api/logout'),
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

export const useForgotPassword = () =>
  useMutation({
    mutationFn: (request: TForgotPasswordRequest) => api.post<TStatusMessage>('/api/forgot-password', request),
    meta: { reportErrors: false },
  });

export const useResetPassword = () =>
  useMutation({
    mutationFn: (request: TResetPasswordRequest) => api.post<TStatusMessage>('/api/reset-password', request),
    meta: { reportErrors: false },
  });
