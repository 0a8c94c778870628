import { routeUrl, spamTestApi, type TSpamTestRequest } from '@sendwell/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { callRoute } from '../../app/api';
import { useRealtimeEvent } from '../../app/realtime';
import { sendEmailKeys } from '../send-email/send-email.queries';

export const SPAM_TEST_HISTORY_URL = routeUrl(spamTestApi.history);
export const rawUrl = (id: number) => routeUrl(spamTestApi.raw, { id });
export const resultPath = (id: number) => `/tools/mail-testing/history/result/${id}`;

export const spamTestKeys = {
  all: ['spam-test'] as const,
  history: ['spam-test', 'history'] as const,
  result: (id: number) => ['spam-test', 'result', id] as const,
};

export const useStartSpamTest = () =>
  useMutation({
    mutationFn: (body: TSpamTestRequest) => callRoute(spamTestApi.send, { body }),
    // A spam test is handled by the flow's own dialogs (ERR_LIMIT, field errors).
    meta: { reportErrors: false },
  });

/** One test with its report; the realtime event refreshes it the moment its message is scored. */
export const useSpamTestResult = (id: number | null) =>
  useQuery({
    queryKey: spamTestKeys.result(id ?? 0),
    queryFn: async ({ signal }) => (await callRoute(spamTestApi.result, { params: { id: id ?? 0 }, signal })).data,
    enabled: id !== null,
    meta: { reportErrors: false },
  });

/** Keeps every open test, the history and the credit figures current as tests move on. */
export const useSpamTestEvents = () => {
  const queryClient = useQueryClient();
  useRealtimeEvent('SpamTestEvent', (event) => {
    void queryClient.invalidateQueries({ queryKey: spamTestKeys.result(event.id) });
    void queryClient.invalidateQueries({ queryKey: spamTestKeys.history });
    if (event.status === 'failed') void queryClient.invalidateQueries({ queryKey: sendEmailKeys.content });
  });
};

export const useSaveSpamTestTemplate = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { name: string; sent_id: number }) => callRoute(spamTestApi.saveAsTemplate, { body }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: sendEmailKeys.content }),
  });
};
