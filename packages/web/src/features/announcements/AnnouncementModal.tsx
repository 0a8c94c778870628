import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { IconSpeakerphone } from '@tabler/icons-react';
import { type ReactNode, useEffect, useState } from 'react';
import { AnnouncementContext, isDue, useCurrentAnnouncement, writeDismissed } from './announcements';

/**
 * The announcement modal (spec §1, §4, §9): the latest published announcement, with a
 * static backdrop (a click beside it does not close it; the button and Escape do), shown
 * by itself when never dismissed or a week after the last dismissal, and whenever the
 * navigation link asks. Wraps the signed-in shell so the link can reach it.
 */
export const AnnouncementProvider = ({ children }: { children: ReactNode }) => {
  const { data: announcement } = useCurrentAnnouncement();
  const [isOpened, setOpened] = useState(false);

  useEffect(() => {
    if (announcement && isDue(announcement.id)) setOpened(true);
  }, [announcement]);

  const dismiss = () => {
    if (announcement) writeDismissed(announcement.id);
    setOpened(false);
  };

  return (
    <AnnouncementContext.Provider value={{ open: () => setOpened(true), hasAnnouncement: Boolean(announcement) }}>
      {children}
      {announcement && (
        <Modal
          opened={isOpened}
          onClose={dismiss}
          closeOnClickOutside={false}
          size="lg"
          transitionProps={{ transition: 'slide-down', duration: 800 }}
          title={
            <Group gap="xs">
              <IconSpeakerphone size={20} aria-hidden />
              <Text fw={700}>{announcement.title}</Text>
            </Group>
          }
        >
          <Stack>
            <Text style={{ whiteSpace: 'pre-wrap' }}>{announcement.body}</Text>
            <Group justify="flex-end">
              <Button onClick={dismiss} data-autofocus>
                Got it
              </Button>
            </Group>
          </Stack>
        </Modal>
      )}
    </AnnouncementContext.Provider>
  );
};
