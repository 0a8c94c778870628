import { notifications } from '@mantine/notifications';
import { authApi, type TUserInformation } from '@sendwell/contracts';
import { type QueryClient, useQuery } from '@tanstack/react-query';
import { ApiError, callRoute } from './api';

export const USER_QUERY_KEY = ['user'] as const;

/** `null` means signed out; a 401 here is an answer, not a failure. */
const fetchUser = async (signal: AbortSignal): Promise<TUserInformation | null> => {
  try {
    const { data } = await callRoute(authApi.userInformation, { signal });
    return data;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    throw error;
  }
};

export const useUserQuery = () =>
  useQuery({
    queryKey: USER_QUERY_KEY,
    queryFn: ({ signal }) => fetchUser(signal),
    staleTime: Number.POSITIVE_INFINITY,
    meta: { reportErrors: false },
  });

/** For screens inside the signed-in shell, where the route guard has already loaded the user. */
export const useSignedInUser = (): TUserInformation => {
  const { data } = useUserQuery();
  if (!data) throw new Error('useSignedInUser is only for screens behind the sign-in guard.');
  return data;
};

export const isSignedIn = (queryClient: QueryClient): boolean =>
  Boolean(queryClient.getQueryData<TUserInformation | null>(USER_QUERY_KEY));

/**
 * Forget the user and everything fetched on their behalf, so the next person at this browser
 * sees none of it. The route guard notices the `null` and sends the tab to /login.
 */
export const endSession = (queryClient: QueryClient): void => {
  queryClient.setQueryData(USER_QUERY_KEY, null);
  queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== USER_QUERY_KEY[0] });
};

export const startSession = (queryClient: QueryClient, user: TUserInformation): void => {
  queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== USER_QUERY_KEY[0] });
  queryClient.setQueryData(USER_QUERY_KEY, user);
};

/**
 * For a sign-in whose answer does not carry the user (registration): drop what was fetched as a
 * guest and load the user as the guard does. Setting the user moves the guest guard on.
 */
export const refreshSession = async (queryClient: QueryClient): Promise<void> => {
  queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== USER_QUERY_KEY[0] });
  await queryClient.fetchQuery({ queryKey: USER_QUERY_KEY, queryFn: ({ signal }) => fetchUser(signal), staleTime: 0 });
};

/** The server says the session is gone (a 401, or the realtime socket closed with 4401). */
export const expireSession = (queryClient: QueryClient): void => {
  // A 401 while signed out is a wrong password or a guest page, not an expired session.
  if (!isSignedIn(queryClient)) return;
  endSession(queryClient);
  notifications.show({
    color: 'yellow',
    title: 'Signed out',
    message: 'Your session has ended. Please sign in again.',
    position: 'top-center',
  });
};
