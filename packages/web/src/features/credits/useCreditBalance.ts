import { skipToken, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRealtimeEvent } from '../../app/realtime';

export const CREDIT_BALANCE_QUERY_KEY = ['credits', 'balance'] as const;

/**
 * The user's credit balance, or `null` until it is known. Kept in the query cache so every
 * reader shares the latest value pushed over realtime (CreditBalanceEvent). The billing issue
 * adds the initial fetch by replacing `skipToken` with a query function.
 */
export const useCreditBalance = (): number | null => {
  const queryClient = useQueryClient();
  useRealtimeEvent('CreditBalanceEvent', ({ totalCredit }) =>
    queryClient.setQueryData(CREDIT_BALANCE_QUERY_KEY, totalCredit),
  );
  const { data } = useQuery<number>({ queryKey: CREDIT_BALANCE_QUERY_KEY, queryFn: skipToken });
  return data ?? null;
};
