import { notificationsApi, routeUrl, type TNotificationPage } from '@sendwell/contracts';
import { type QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { callRoute } from '../../app/api';

export const NOTIFICATIONS_URL = routeUrl(notificationsApi.list);

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
      callRoute(notificationsApi.list, {
        query: { page: 1, per_page: LATEST_UNREAD_COUNT, column: 'created_at', order: 'desc', unread: 1 },
        signal,
      }),
    // A header widget must not interrupt whatever the user is doing with a dialog.
    meta: { reportErrors: false },
  });

/** The bell shows the pushed count at once, before the refetch that brings the new item arrives. */
export const setUnreadCount = (queryClient: QueryClient, unread: number): void => {
  queryClient.setQueryData<TNotificationPage>(notificationKeys.latestUnread, (page) =>
    page ? { ...page, unread } : page,
  );
};

/** `ids` marks those notifications read; without it, all of them. */
export const useMarkNotificationsRead = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (ids?: number[]) => callRoute(notificationsApi.markRead, { body: ids ? { ids } : {} }),
    onSuccess: ({ unread }) => {
      setUnreadCount(queryClient, unread);
      return queryClient.invalidateQueries({ queryKey: notificationKeys.all });
    },
  });
};
