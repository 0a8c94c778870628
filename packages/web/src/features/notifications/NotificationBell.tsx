import { ActionIcon, Indicator, Menu, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconBell, IconChecks, IconListDetails } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { useFormatDateTime } from '../../app/dates';
import { useRealtimeEvent } from '../../app/realtime';
import { notificationKeys, setUnreadCount, useLatestUnread, useMarkNotificationsRead } from './notifications.queries';

export const NotificationBell = () => {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const formatDateTime = useFormatDateTime();
  const latest = useLatestUnread();
  const markRead = useMarkNotificationsRead();
  const unread = latest.data?.unread ?? 0;
  const items = latest.data?.data ?? [];

  useRealtimeEvent('NotificationEvent', (notification) => {
    setUnreadCount(queryClient, notification.unread);
    // Refreshes the bell's list and any notifications table on screen.
    void queryClient.invalidateQueries({ queryKey: notificationKeys.all });
    notifications.show({
      title: notification.title,
      message: notification.body,
      icon: <IconBell size={18} />,
      position: 'bottom-right',
    });
  });

  return (
    <Menu position="bottom-end" width={320} shadow="md">
      <Menu.Target>
        <ActionIcon
          variant="subtle"
          color="gray"
          size="lg"
          aria-label={unread > 0 ? `Notifications, ${unread} unread` : 'Notifications'}
          data-testid="notification-bell"
          // The count badge sits over the button's corner; ActionIcon clips its content otherwise.
          style={{ overflow: 'visible' }}
        >
          <Indicator label={unread} maxValue={99} disabled={unread === 0} size={16} color="red" offset={1}>
            <IconBell size={22} stroke={1.6} />
          </Indicator>
        </ActionIcon>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>Unread notifications</Menu.Label>
        {items.length === 0 && (
          <Text size="sm" c="dimmed" px="sm" py="xs">
            You are all caught up.
          </Text>
        )}
        {items.map((item) => (
          <Menu.Item key={item.id} onClick={() => navigate('/notifications')}>
            <Text size="sm" fw={600} lineClamp={1}>
              {item.title}
            </Text>
            <Text size="xs" c="dimmed">
              {formatDateTime(item.created_at)}
            </Text>
          </Menu.Item>
        ))}
        <Menu.Divider />
        <Menu.Item
          leftSection={<IconChecks size={16} />}
          disabled={unread === 0 || markRead.isPending}
          onClick={() => markRead.mutate(undefined)}
        >
          Mark all as read
        </Menu.Item>
        <Menu.Item component={Link} to="/notifications" leftSection={<IconListDetails size={16} />}>
          View all notifications
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
};
