import {
  billingApi,
  plansApi,
  type TBuyCreditsRequest,
  type TChangePlanRequest,
  type TPackage,
} from '@sendwell/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { callRoute } from '../../app/api';
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
    queryFn: async ({ signal }) => (await callRoute(plansApi.packages, { signal })).data,
    staleTime: CATALOGUE_STALE_MS,
  });

/** Whether this server takes payments (a Stripe publishable key) and the credit packs it sells. */
export const useBillingOptions = () =>
  useQuery({
    queryKey: billingKeys.options,
    queryFn: ({ signal }) => callRoute(billingApi.options, { signal }),
    staleTime: CATALOGUE_STALE_MS,
  });

export const useSubscription = () =>
  useQuery({
    queryKey: billingKeys.subscription,
    queryFn: async ({ signal }) => (await callRoute(billingApi.subscription, { signal })).data,
  });

export const useChangePlan = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (request: TChangePlanRequest) => callRoute(billingApi.changePlan, { body: request }),
    onSuccess: ({ data }) => {
      queryClient.setQueryData(billingKeys.subscription, data);
      // User information carries the plan (and the free flag other screens check).
      return queryClient.invalidateQueries({ queryKey: USER_QUERY_KEY });
    },
    // The dialog shows card, validation and rate-limit failures itself.
    meta: { reportErrors: false },
  });
};

export const useBuyCredits = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (request: TBuyCreditsRequest) => callRoute(billingApi.buyCredits, { body: request }),
    onSuccess: ({ credit }) => {
      // Realtime brings the same balance; setting it here covers a tab whose socket is reconnecting.
      setCreditBalance(queryClient, credit);
      // A first purchase with a new card leaves that card on file.
      return queryClient.invalidateQueries({ queryKey: billingKeys.subscription });
    },
    meta: { reportErrors: false },
  });
};
