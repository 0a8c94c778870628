import type {
  TBillingOptions,
  TBuyCreditsRequest,
  TChangePlanRequest,
  TCreditBalance,
  TPackage,
  TSubscriptionState,
} from '@sendwell/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../app/api';
import { USER_QUERY_KEY } from '../../app/session';
import { setCreditBalance } from '../credits/useCreditBalance';

/** One plan of `GET /api/packages` (the spec's package). */
export type TPlan = TPackage;

export const billingKeys = {
  plans: ['billing', 'plans'] as const,
  options: ['billing', 'options'] as const,
  subscription: ['billing', 'subscription'] as const,
};

/** Plans and billing options change only when the operator edits them; a page view need not ask twice. */
const CATALOGUE_STALE_MS = 5 * 60_000;

/** Every plan, cheapest first; public, so registration can offer them. */
export const usePlans = () =>
  useQuery({
    queryKey: billingKeys.plans,
    queryFn: async ({ signal }) => (await api.get<{ data: TPlan[] }>('/api/packages', undefined, signal)).data,
    staleTime: CATALOGUE_STALE_MS,
  });

/** Whether this server takes payments (a Stripe publishable key) and the credit packs it sells. */
export const useBillingOptions = () =>
  useQuery({
    queryKey: billingKeys.options,
    queryFn: ({ signal }) => api.get<TBillingOptions>('/api/billing/options', undefined, signal),
    staleTime: CATALOGUE_STALE_MS,
  });

export const useSubscription = () =>
  useQuery({
    queryKey: billingKeys.subscription,
    queryFn: async ({ signal }) =>
      (await api.get<{ data: TSubscriptionState }>('/api/subscription', undefined, signal)).data,
  });

type TChangePlanResponse = { status: true; message: string; data: TSubscriptionState };

export const useChangePlan = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (request: TChangePlanRequest) => api.post<TChangePlanResponse>('/api/subscription/change', request),
    onSuccess: ({ data }) => {
      queryClient.setQueryData(billingKeys.subscription, data);
      // User information carries the plan (and the free flag other screens check).
      return queryClient.invalidateQueries({ queryKey: USER_QUERY_KEY });
    },
    // The dialog shows card, validation and rate-limit failures itself.
    meta: { reportErrors: false },
  });
};

type TBuyCreditsResponse = { status: true; message: string; credit: TCreditBalance };

export const useBuyCredits = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (request: TBuyCreditsRequest) => api.post<TBuyCreditsResponse>('/api/credits/purchase', request),
    onSuccess: ({ credit }) => {
      // Realtime brings the same balance; setting it here covers a tab whose socket is reconnecting.
      setCreditBalance(queryClient, credit);
      // A first purchase with a new card leaves that card on file.
      return queryClient.invalidateQueries({ queryKey: billingKeys.subscription });
    },
    meta: { reportErrors: false },
  });
};
