import { Badge, Button, Card, Group, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { type TAnnouncement, ZAnnouncementInput } from '@sendwell/contracts';
import { useState } from 'react';
import { useFormatDateTime } from '../../app/dates';
import { showSuccess } from '../../app/toasts';
import { useZodForm } from '../../app/useZodForm';
import { FormError } from '../../components/FormError';
import { FormStack } from '../../components/FormStack';
import { LoadFailedAlert } from '../../components/LoadFailedAlert';
import { useAnnouncements, usePublishAnnouncement, useSaveAnnouncement } from './operator.queries';

const AnnouncementForm = ({ editing, onDone }: { editing: TAnnouncement | null; onDone: () => void }) => {
  const save = useSaveAnnouncement(editing?.id ?? null);
  const form = useZodForm(ZAnnouncementInput, {
    initialValues: { title: editing?.title ?? '', body: editing?.body ?? '' },
    onSubmit: (body, { fail }) =>
      save.mutate(body, {
        onSuccess: ({ message }) => {
          showSuccess(message, 'Done');
          form.setValues({ title: '', body: '' });
          onDone();
        },
        onError: fail,
      }),
  });
  return (
    <Card withBorder>
      <FormStack onSubmit={form.onSubmit}>
        <Title order={3} size="h5">
          {editing ? `Edit “${editing.title}”` : 'Write an announcement'}
        </Title>
        <FormError message={form.formError} />
        <TextInput label="Title" required {...form.inputProps('title')} />
        <Textarea label="Text" required autosize minRows={4} maxRows={12} {...form.inputProps('body')} />
        <Group justify="flex-end">
          {editing && (
            <Button variant="default" onClick={onDone}>
              Cancel
            </Button>
          )}
          <Button type="submit" loading={save.isPending}>
            Save
          </Button>
        </Group>
      </FormStack>
    </Card>
  );
};

export const AnnouncementsTab = () => {
  const formatDateTime = useFormatDateTime();
  const announcements = useAnnouncements();
  const publish = usePublishAnnouncement();
  const [editing, setEditing] = useState<TAnnouncement | null>(null);
  return (
    <Stack>
      <AnnouncementForm key={editing?.id ?? 'new'} editing={editing} onDone={() => setEditing(null)} />
      {announcements.isError && (
        <LoadFailedAlert title="The announcements could not be loaded." onRetry={() => void announcements.refetch()} />
      )}
      {announcements.data?.length === 0 && <Text c="dimmed">No announcements yet.</Text>}
      {announcements.data?.map((announcement) => (
        <Card key={announcement.id} withBorder component="section" aria-label={announcement.title}>
          <Group justify="space-between" align="flex-start">
            <Stack gap={4}>
              <Group gap="xs">
                <Text fw={700}>{announcement.title}</Text>
                {announcement.published_at ? (
                  <Badge color="green" variant="light">
                    Published {formatDateTime(announcement.published_at)}
                  </Badge>
                ) : (
                  <Badge color="gray" variant="light">
                    Draft
                  </Badge>
                )}
              </Group>
              <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
                {announcement.body}
              </Text>
            </Stack>
            <Group gap={4} wrap="nowrap">
              <Button size="compact-sm" variant="default" onClick={() => setEditing(announcement)}>
                Edit
              </Button>
              <Button
                size="compact-sm"
                loading={publish.isPending && publish.variables?.id === announcement.id}
                onClick={() => publish.mutate({ id: announcement.id, published: !announcement.published_at })}
              >
                {announcement.published_at ? 'Unpublish' : 'Publish'}
              </Button>
            </Group>
          </Group>
        </Card>
      ))}
    </Stack>
  );
};
