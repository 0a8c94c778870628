import type { TTestInboxMessageDetail } from '@sendwell/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../app/api';

export const TEST_INBOX_MESSAGES_URL = '/api/test-inbox/messages';

/** The HTML part, served with a sandbox policy; only ever shown in a sandboxed frame. */
export const messageHtmlUrl = (id: number) => `${TEST_INBOX_MESSAGES_URL}/${id}/html`;

export const testInboxKeys = {
  /** Every page of the message list: invalidating it refreshes the table on screen. */
  messages: ['test-inbox', 'messages'] as const,
  message: (id: number) => ['test-inbox', 'message', id] as const,
};

export const useTestInboxMessage = (id: number | null) =>
  useQuery({
    queryKey: testInboxKeys.message(id ?? 0),
    queryFn: async ({ signal }) =>
      (await api.get<{ data: TTestInboxMessageDetail }>(`${TEST_INBOX_MESSAGES_URL}/${id}`, undefined, signal)).data,
    enabled: id !== null,
    // A received message never changes.
    staleTime: Number.POSITIVE_INFINITY,
    // The preview shows the failure where the message would be.
    meta: { reportErrors: false },
  });

export const useClearTestInbox = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.delete<{ status: true; message: string }>(TEST_INBOX_MESSAGES_URL),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['test-inbox'] }),
  });
};
