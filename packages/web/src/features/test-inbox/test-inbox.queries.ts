import { routeUrl, testInboxApi } from '@sendwell/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { callRoute } from '../../app/api';

export const TEST_INBOX_MESSAGES_URL = routeUrl(testInboxApi.messages);

/** The HTML part, served with a sandbox policy; only ever shown in a sandboxed frame. */
export const messageHtmlUrl = (id: number) => routeUrl(testInboxApi.messageHtml, { id });

export const testInboxKeys = {
  /** Every page of the message list: invalidating it refreshes the table on screen. */
  messages: ['test-inbox', 'messages'] as const,
  message: (id: number) => ['test-inbox', 'message', id] as const,
};

export const useTestInboxMessage = (id: number | null) =>
  useQuery({
    queryKey: testInboxKeys.message(id ?? 0),
    queryFn: async ({ signal }) => (await callRoute(testInboxApi.message, { params: { id: id ?? 0 }, signal })).data,
    enabled: id !== null,
    // A received message never changes.
    staleTime: Number.POSITIVE_INFINITY,
    // The preview shows the failure where the message would be.
    meta: { reportErrors: false },
  });

/** The message as it arrived (`.eml`). */
export const messageRawUrl = (id: number) => routeUrl(testInboxApi.raw, { id });

/** The headers as received and the spam test's analysis, computed by the server the first time. */
export const useTestInboxAnalysis = (id: number | null) =>
  useQuery({
    queryKey: ['test-inbox', 'analysis', id ?? 0],
    queryFn: async ({ signal }) => (await callRoute(testInboxApi.analysis, { params: { id: id ?? 0 }, signal })).data,
    enabled: id !== null,
    staleTime: Number.POSITIVE_INFINITY,
    meta: { reportErrors: false },
  });

export const useClearTestInbox = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => callRoute(testInboxApi.clear),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['test-inbox'] }),
  });
};
