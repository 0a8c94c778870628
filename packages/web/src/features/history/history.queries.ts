import {
  historyApi,
  preSendApi,
  routeUrl,
  type TEngagementAudience,
  type TEngagementResend,
  type TSendEmailForm,
} from '@sendwell/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { callRoute } from '../../app/api';
import { useRealtimeEvent } from '../../app/realtime';
import { preSendCheckQuery } from '../send-email/send-email.queries';

export const HISTORY_URL = routeUrl(historyApi.list);
export const SCHEDULED_URL = routeUrl(historyApi.scheduled);
export const detailsUrl = (accountId: number, id: number) => routeUrl(historyApi.details, { accountId, id });
export const exportUrl = (accountId: number, id: number) => routeUrl(historyApi.export, { accountId, id });

export const historyKeys = {
  all: ['history'] as const,
  list: ['history', 'list'] as const,
  counts: (id: number) => ['history', 'counts', id] as const,
  details: (id: number) => ['history', 'details', id] as const,
  scheduled: ['history', 'scheduled'] as const,
};

/** A send moving on refreshes the history's rows and counters without a reload. */
export const useLiveHistory = () => {
  const queryClient = useQueryClient();
  useRealtimeEvent('SendProgressEvent', () => void queryClient.invalidateQueries({ queryKey: historyKeys.all }));
};

export const useHistoryCounts = (id: number) =>
  useQuery({
    queryKey: historyKeys.counts(id),
    queryFn: ({ signal }) => callRoute(historyApi.counts, { params: { id }, signal }),
  });

const useHistoryMutation = <V, R>(mutationFn: (variables: V) => Promise<R>) => {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn, onSuccess: () => queryClient.invalidateQueries({ queryKey: historyKeys.all }) });
};

/** The pre-send check of History's Send again (issue 45 §4): the old send as it will go again. */
export const useResendPreSendCheck = (send: { accountId: number; id: number } | null) =>
  useQuery(
    preSendCheckQuery(['history', 'resend-pre-send', send], send, (body, signal) =>
      callRoute(preSendApi.resend, { body, signal }),
    ),
  );

export const useResend = () =>
  useHistoryMutation((send: { accountId: number; id: number }) => callRoute(historyApi.resend, { body: send }));

export const useScheduledAction = () =>
  useHistoryMutation(({ action, id }: { action: 'cancel' | 'removeCancel' | 'delete'; id: number }) => {
    const route = {
      cancel: historyApi.cancelScheduled,
      removeCancel: historyApi.removeCancel,
      delete: historyApi.deleteScheduled,
    }[action];
    return callRoute(route, { params: { id } });
  });

/** Edit Scheduled Email: the whole Send Email form saved onto the pending email. */
export const useUpdateScheduled = (id: number) =>
  useHistoryMutation((body: TSendEmailForm) => callRoute(historyApi.updateScheduled, { params: { id }, body }));

/** A scheduled email as the Send Email form's starting point. */
export const useScheduledEditData = (id: number) =>
  useQuery({
    queryKey: ['history', 'scheduled-edit', id],
    queryFn: ({ signal }) => callRoute(historyApi.scheduledEditData, { params: { id }, signal }),
    // The page shows a failed load in place of the form.
    meta: { reportErrors: false },
  });

/** Re-send by engagement (issue 31): how many a new send to this audience would reach. */
export const useEngagementCount = (id: number, audience: TEngagementAudience | null, linkId: number | null) =>
  useQuery({
    queryKey: ['history', 'engagement', id, audience, linkId] as const,
    queryFn: ({ signal }) =>
      callRoute(historyApi.engagementCount, {
        params: { id },
        query: { audience: audience!, ...(linkId ? { linkId } : {}) },
        signal,
      }),
    enabled: audience !== null,
    staleTime: 0,
  });

export const useResendEngagement = (id: number) =>
  useHistoryMutation((body: TEngagementResend) => callRoute(historyApi.resendEngagement, { params: { id }, body }));
