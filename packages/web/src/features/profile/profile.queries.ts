import {
  profileApi,
  type TEmailChangeRequest,
  type TPasswordChangeRequest,
  type TProfile,
  type TProfileUpdate,
} from '@sendwell/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { callRoute } from '../../app/api';
import { USER_QUERY_KEY } from '../../app/session';
import { useEndSessionMutation } from '../auth/auth.queries';

export const profileKeys = { profile: ['profile'] as const };

export const useProfile = () =>
  useQuery({
    queryKey: profileKeys.profile,
    queryFn: async ({ signal }) => (await callRoute(profileApi.get, { signal })).data,
    // The page shows a failed load in place of its forms.
    meta: { reportErrors: false },
  });

/** A change to the profile reaches the header (name) and every screen's times (zone) at once. */
const useProfileChange = <B>(call: (body: B) => Promise<{ message: string; data?: TProfile }>) => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSuccess: ({ data }) => {
      if (data) queryClient.setQueryData(profileKeys.profile, data);
      void queryClient.invalidateQueries({ queryKey: USER_QUERY_KEY });
      // Times, days and filters of every other page follow the new zone.
      void queryClient.invalidateQueries({ predicate: (query) => query.queryKey[0] !== USER_QUERY_KEY[0] });
    },
    // Each form shows its own field errors.
    meta: { reportErrors: false },
  });
};

export const useUpdateProfile = () =>
  useProfileChange((body: TProfileUpdate) => callRoute(profileApi.update, { body }));

export const useChangeEmail = () =>
  useProfileChange((body: TEmailChangeRequest) => callRoute(profileApi.changeEmail, { body }));

/** The Profile's Cancel beside a waiting change: its link stops working. */
export const useCancelEmailChange = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => callRoute(profileApi.cancelEmail),
    onSuccess: ({ data }) => queryClient.setQueryData(profileKeys.profile, data),
  });
};

/**
 * "Sign out everywhere": this tab is signed out too, like Sign out.
 */
export const useSignOutEverywhere = () => useEndSessionMutation(() => callRoute(profileApi.signOutEverywhere));

/** The old address's undo link: a click on its page (never on arrival, so a mail scanner undoes nothing). */
export const useUndoEmailChange = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (token: string) => callRoute(profileApi.undoEmail, { body: { token } }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: USER_QUERY_KEY });
      void queryClient.invalidateQueries({ queryKey: profileKeys.profile });
    },
    meta: { reportErrors: false },
  });
};

export const useChangePassword = () =>
  useMutation({
    mutationFn: (body: TPasswordChangeRequest) => callRoute(profileApi.changePassword, { body }),
    meta: { reportErrors: false },
  });

export const useConfirmEmail = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (token: string) => callRoute(profileApi.confirmEmail, { body: { token } }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: USER_QUERY_KEY });
      void queryClient.invalidateQueries({ queryKey: profileKeys.profile });
    },
    meta: { reportErrors: false },
  });
};
