import { historyApi, routeUrl, type TScheduledEdit } from '@sendwell/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { callRoute } from '../../app/api';
import { useRealtimeEvent } from '../../app/realtime';

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

export const useEditScheduled = (id: number) =>
  useHistoryMutation((body: TScheduledEdit) => callRoute(historyApi.editScheduled, { params: { id }, body }));
