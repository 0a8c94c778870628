import { Button, Center, Loader, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { useUserQuery } from './session';

/** Where the user was going when the guard sent them to sign in. */
export type TLoginRedirectState = { from?: string };

const SessionLoading = () => (
  <Center h="100vh">
    <Loader aria-label="Loading" />
  </Center>
);

const SessionFailed = ({ onRetry }: { onRetry: () => void }) => (
  <Center h="100vh" p="md">
    <Stack align="center" gap="sm" maw={420} ta="center">
      <Title order={2}>Sendwell is not reachable</Title>
      <Text c="dimmed">We could not check whether you are signed in. Check your connection and try again.</Text>
      <Button onClick={onRetry}>Try again</Button>
    </Stack>
  </Center>
);

/** Signed-in screens: anyone else goes to /login, which sends them back here afterwards. */
export const RequireUser = ({ children }: { children: ReactNode }) => {
  const location = useLocation();
  const user = useUserQuery();
  if (user.isPending) return <SessionLoading />;
  if (user.isError) return <SessionFailed onRetry={() => void user.refetch()} />;
  if (!user.data) {
    const state: TLoginRedirectState = { from: `${location.pathname}${location.search}${location.hash}` };
    return <Navigate to="/login" replace state={state} />;
  }
  return children;
};

/** Only paths inside this app: a crafted `from` must not send a fresh session to another site. */
const safeReturnPath = (from: unknown): string =>
  typeof from === 'string' && from.startsWith('/') && !from.startsWith('//') ? from : '/';

/**
 * The sign-in page: a signed-in user has nothing to do there. This is also what moves the user on
 * after signing in, to where they were going when the guard stopped them.
 */
export const RequireGuest = ({ children }: { children: ReactNode }) => {
  const location = useLocation();
  const user = useUserQuery();
  if (user.isPending) return <SessionLoading />;
  if (user.data) {
    const { from } = (location.state ?? {}) as TLoginRedirectState;
    return <Navigate to={safeReturnPath(from)} replace />;
  }
  return children;
};
