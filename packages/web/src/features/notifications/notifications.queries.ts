import type { TNotificationPage } from '@sendwell/contracts';
import { type QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../app/api';

export const NOTIFICATIONS_URL = '/api/notifications';

export const notificationKeys = {
  all: ['notifications'] as const,
  list: ['notifications', 'list'] as const,
  latestUnread: ['notifications', 'latest-unread'] as const,
};

/** How many unread notifications the bell lists; the rest are one click away on the page. */
const LATEST_UNREAD_COUNT = 5;

/** The newest unread notifications and the unread total, for the header bell. */
export const useLatestUnread = () =>
  useQuery({
    queryKey: notificationKeys.latestUnread,
    queryFn: ({ signal }) =>
      api.get<TNotificationPage>(
        NOTIFICATIONS_URL,
        { page: 1, per_page: LATEST_UNREAD_COUNT, column: 'created_at', order: 'desc', unread: 1 },
        signal,
      ),
    // A header widget must not interrupt whatever the user is doing with a dialog.
    meta: { reportErrors: false },
  });

/** The bell shows the pushed count at once, before the refetch that brings the new item arrives. */
export const setUnreadCount = (queryClient: QueryClient, unread: number): void => {
  queryClient.setQueryData<TNotificationPage>(notificationKeys.latestUnread, (page) =>
    page ? { ...page, unread } : page,
  );
};

type TMarkReadResult = { status: true; message: string; unread: number };

/** `ids` marks those notifications read; without it, all of them. */
export const useMarkNotificationsRead = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (ids?: number[]) => api.post<TMarkReadResult>(`${NOTIFICATIONS_URL}/read`, ids ? { ids } : {}),
    onSuccess: ({ unread }) => {
      setUnreadCount(queryClient, unread);
      return queryClient.invalidateQueries({ queryKey: notificationKeys.all });
    },
  });
};
