import { Badge, Button, Group, SegmentedControl, Stack, Text } from '@mantine/core';
import type { TNotification, TNotificationPage } from '@sendwell/contracts';
import { IconCheck, IconChecks } from '@tabler/icons-react';
import { useState } from 'react';
import { useFormatDateTime } from '../../app/dates';
import { DataTableCard, type TDataTableColumn } from '../../components/DataTable';
import { PageHeader } from '../../components/PageHeader';
import { NotificationLink } from './NotificationLink';
import { NOTIFICATIONS_URL, notificationKeys, useMarkNotificationsRead } from './notifications.queries';

type TShow = 'all' | 'unread';

const NotificationDetails = ({ notification }: { notification: TNotification }) => (
  <Stack gap="xs" py="xs" px="sm">
    <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
      {notification.body}
    </Text>
    {notification.link && <NotificationLink link={notification.link} />}
  </Stack>
);

export const NotificationsPage = () => {
  const formatDateTime = useFormatDateTime();
  const markRead = useMarkNotificationsRead();
  const [show, setShow] = useState<TShow>('all');

  const columns: TDataTableColumn<TNotification>[] = [
    {
      key: 'title',
      title: 'Title',
      sortable: true,
      render: (notification) => (
        <Text size="sm" fw={notification.read_at ? 400 : 600}>
          {notification.title}
        </Text>
      ),
    },
    {
      key: 'body',
      title: 'Message',
      render: (notification) => (
        <Text size="sm" c="dimmed" lineClamp={1} maw={480}>
          {notification.body}
        </Text>
      ),
    },
    {
      key: 'created_at',
      title: 'Received',
      sortable: true,
      width: 190,
      render: (notification) => formatDateTime(notification.created_at),
    },
    {
      key: 'read_at',
      title: 'Status',
      width: 100,
      render: (notification) =>
        notification.read_at ? (
          <Badge color="gray" variant="light">
            Read
          </Badge>
        ) : (
          <Badge variant="light">Unread</Badge>
        ),
    },
  ];

  return (
    <>
      <PageHeader title="Notifications" description="Messages from Sendwell about your sends, lists and account." />
      <DataTableCard<TNotification, TNotificationPage>
        label="Notifications"
        queryKey={notificationKeys.list}
        url={NOTIFICATIONS_URL}
        columns={columns}
        defaultSort={{ column: 'created_at', order: 'desc' }}
        filters={{ unread: show === 'unread' ? 1 : undefined }}
        selectable
        renderExpanded={(notification) => <NotificationDetails notification={notification} />}
        toolbar={({ selectedIds, clearSelection, response }) => (
          <Group gap="xs">
            <SegmentedControl
              size="xs"
              aria-label="Show"
              value={show}
              onChange={(value) => setShow(value as TShow)}
              data={[
                { label: 'All', value: 'all' },
                { label: 'Unread', value: 'unread' },
              ]}
            />
            <Button
              size="xs"
              variant="default"
              leftSection={<IconCheck size={14} />}
              disabled={selectedIds.length === 0}
              loading={markRead.isPending && markRead.variables !== undefined}
              onClick={() => markRead.mutate(selectedIds.map(Number), { onSuccess: clearSelection })}
            >
              Mark as read
            </Button>
            <Button
              size="xs"
              variant="default"
              leftSection={<IconChecks size={14} />}
              disabled={(response?.unread ?? 0) === 0}
              loading={markRead.isPending && markRead.variables === undefined}
              onClick={() => markRead.mutate(undefined)}
            >
              Mark all as read
            </Button>
            {selectedIds.length > 0 && (
              <Text size="sm" c="dimmed">
                {selectedIds.length} selected
              </Text>
            )}
          </Group>
        )}
      />
    </>
  );
};
