import type { TCreditBalance, TUserInformation } from '@sendwell/contracts';
import { type QueryClient, useQueryClient } from '@tanstack/react-query';
import { useRealtimeEvent } from '../../app/realtime';
import { USER_QUERY_KEY, useUserQuery } from '../../app/session';

/**
 * Keeps a pushed balance where every reader looks: the signed-in user's cached information.
 * One copy, so a screen mounted after the event (or remounted) starts from the new value
 * instead of the one the page loaded with.
 */
export const setCreditBalance = (queryClient: QueryClient, balance: TCreditBalance): void => {
  queryClient.setQueryData<TUserInformation | null>(USER_QUERY_KEY, (user) =>
    user ? { ...user, credit: { totalCredit: balance.totalCredit, usedCredit: balance.usedCredit } } : user,
  );
};

/**
 * The user's credit balance, or `null` while no user is loaded. Starts from the balance
 * user information carried at page load and follows CreditBalanceEvent, which the server
 * sends to every tab of the user whenever the balance changes. After a dropped socket the
 * shell refetches every query, user information included, so missed events are caught up.
 */
export const useCreditBalance = (): TCreditBalance | null => {
  const queryClient = useQueryClient();
  useRealtimeEvent('CreditBalanceEvent', (balance) => setCreditBalance(queryClient, balance));
  return useUserQuery().data?.credit ?? null;
};
