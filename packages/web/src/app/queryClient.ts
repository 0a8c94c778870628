import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { ApiError } from './api';
import { isUnauthorized, showError } from './errors';
import { expireSession } from './session';

export type TRequestMeta = {
  /** `false` when the screen shows the failure itself (tables show 'No data found.', forms show it inline). */
  reportErrors?: boolean;
};

declare module '@tanstack/react-query' {
  interface Register {
    queryMeta: TRequestMeta;
    mutationMeta: TRequestMeta;
  }
}

const onError = (queryClient: QueryClient, error: unknown, meta: TRequestMeta | undefined): void => {
  if (isUnauthorized(error)) {
    expireSession(queryClient);
    return;
  }
  if (meta?.reportErrors === false) return;
  showError(error);
};

/** The server has answered; asking again gives the same answer. Only a lost connection is worth a retry. */
const shouldRetry = (failureCount: number, error: unknown): boolean => !(error instanceof ApiError) && failureCount < 2;

export const createQueryClient = (): QueryClient => {
  const queryClient: QueryClient = new QueryClient({
    queryCache: new QueryCache({ onError: (error, query) => onError(queryClient, error, query.meta) }),
    mutationCache: new MutationCache({
      onError: (error, _variables, _context, mutation) => onError(queryClient, error, mutation.meta),
    }),
    defaultOptions: {
      queries: { retry: shouldRetry, staleTime: 10_000 },
      mutations: { retry: false },
    },
  });
  return queryClient;
};
