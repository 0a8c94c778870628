import {
  sendEmailApi,
  type TRealtimePayload,
  type TSendAfterVerification,
  type TSendEmailForm,
  verificationApi,
} from '@sendwell/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { callRoute } from '../../app/api';
import { useRealtimeEvent } from '../../app/realtime';

export const waitingSendKeys = {
  list: ['send-email', 'waiting-sends'] as const,
  cost: (listIds: number[]) => ['verification', 'lists-cost', listIds] as const,
};

/**
 * A new storage id for a send that waits for its lists' verification: random, from the
 * browser's own source (`getRandomValues` also works where `randomUUID` does not: plain HTTP).
 */
export const newStorageId = () =>
  `upsell-${Array.from(crypto.getRandomValues(new Uint8Array(12)), (byte) => byte.toString(16).padStart(2, '0')).join('')}`;

/** The user's sends that wait for their lists' verification (shown again after a reload). */
export const useWaitingSends = () =>
  useQuery({
    queryKey: waitingSendKeys.list,
    queryFn: async ({ signal }) => (await callRoute(sendEmailApi.waitingSends, { signal })).data,
    meta: { reportErrors: false },
  });

/**
 * Follows the waiting sends live: each verification step refreshes their progress, and
 * `UpsellStart` (the send went out, or could not) is handed to `onStart`.
 */
export const useWaitingSendEvents = (onStart?: (event: TRealtimePayload<'UpsellStart'>) => void) => {
  const queryClient = useQueryClient();
  const refresh = () => void queryClient.invalidateQueries({ queryKey: waitingSendKeys.list });
  useRealtimeEvent('VerifyEmailUpsell', refresh);
  useRealtimeEvent('VerifyProgressDoneForUpsell', refresh);
  useRealtimeEvent('UpsellStart', (event) => {
    refresh();
    onStart?.(event);
  });
};

/** What verifying these lists costs, as it will be charged (spec §7 verify-credit-check). */
export const useListsCost = (listIds: number[], isEnabled: boolean) =>
  useQuery({
    queryKey: waitingSendKeys.cost(listIds),
    queryFn: () => callRoute(verificationApi.creditCheck, { body: { mailingLists: listIds } }),
    enabled: isEnabled && listIds.length > 0,
    staleTime: 0,
  });

/**
 * Verify, then send (spec §7): the lists' verification for the cost the user saw (refused
 * if it changed), then the form with the same storage id, which waits for it.
 */
export const useVerifyThenSend = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({
      request,
      creditsToBeUsed,
      leaveOutInvalid,
    }: {
      request: TSendEmailForm;
      creditsToBeUsed: number;
      leaveOutInvalid: boolean;
    }) => {
      const storageId = newStorageId();
      await callRoute(verificationApi.verifyLists, {
        body: { mailingLists: request.to, storageId, creditsToBeUsed },
      });
      return callRoute(sendEmailApi.send, { body: { ...request, storageId, leaveOutInvalid } });
    },
    // Not awaited: the dialog moves on to the progress bar at once; the lists (Processing...),
    // the credits and the waiting sends refresh behind it.
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: ['send-email'] });
      void queryClient.invalidateQueries({ queryKey: ['lists'] });
    },
  });
};

export const useCancelWaitingSend = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (storageId: string) => callRoute(sendEmailApi.cancelWaitingSend, { params: { storageId } }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: waitingSendKeys.list }),
  });
};

/** How far a waiting send's verification got, in percent. */
export const verifiedPercent = (waiting: TSendAfterVerification) =>
  waiting.verification.total === 0
    ? 100
    : Math.floor((waiting.verification.checked / waiting.verification.total) * 100);
