import { Alert, CloseButton, Group, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { SEND_MESSAGES } from '@sendwell/contracts';
import { IconCalendarCheck } from '@tabler/icons-react';
import { useEffect, useRef, useState } from 'react';
import { useParams } from 'react-router';
import { LoadFailedAlert } from '../../components/LoadFailedAlert';
import { PageHeader } from '../../components/PageHeader';
import { QueryStatus } from '../../components/QueryStatus';
import { NoAccounts } from '../accounts/NoAccounts';
import { SendEmailForm, type TStartedSend } from './SendEmailForm';
import { SendProgressCard } from './SendProgressCard';
import { fromOldSend, useEditEmailData, useSendEmailContent } from './send-email.queries';
import { WaitingSendCard } from './WaitingSendCard';
import { useWaitingSendEvents, useWaitingSends } from './waiting-sends.queries';

const ScheduledNotice = ({
  send,
  timeZone,
  onDismiss,
}: {
  send: TStartedSend;
  timeZone: string;
  onDismiss: () => void;
}) => (
  <Alert
    color="green"
    icon={<IconCalendarCheck size={18} />}
    title={SEND_MESSAGES.scheduled}
    data-testid="send-scheduled"
    withCloseButton={false}
  >
    <Group justify="space-between" wrap="nowrap" align="flex-start">
      <Text size="sm">
        “{send.subject}” goes out on {send.deliveryTime} ({timeZone}).
      </Text>
      <CloseButton size="sm" aria-label="Dismiss" onClick={onDismiss} />
    </Group>
  </Alert>
);

/** Send Email (spec §2 screen 2): compose, preview, confirm, then follow the send live. */
export const SendEmailPage = () => {
  const content = useSendEmailContent();
  // /history/edit-email/{id}: a new send that starts from an old one.
  const { editId } = useParams();
  const edit = useEditEmailData(editId ? Number(editId) : null);
  const [started, setStarted] = useState<TStartedSend[]>([]);
  const dismiss = (sendId: number) => setStarted((sends) => sends.filter((send) => send.sendId !== sendId));
  const startedRef = useRef<HTMLDivElement>(null);
  const latestSendId = started[0]?.sendId;
  // Sends waiting for their lists' verification (the verify-lists upsell): when one goes out,
  // its progress card takes its place; when it cannot, the user is told why.
  const waiting = useWaitingSends();
  const waitingSends = (waiting.data ?? []).filter((send) => send.status === 'waiting' || send.status === 'starting');
  useWaitingSendEvents((event) => {
    const { sendId, error } = event;
    if (typeof sendId === 'number') {
      const subject = waiting.data?.find((send) => send.storageId === event.storageId)?.subject ?? '';
      setStarted((sends) =>
        sends.some((send) => send.sendId === sendId)
          ? sends
          : [{ sendId, scheduled: false, deliveryTime: '', subject }, ...sends],
      );
    } else if (error) {
      notifications.show({ color: 'red', title: 'Not sent', message: error, autoClose: false, position: 'top-center' });
    }
  });

  // The confirmation is clicked at the bottom of a long form; the new send's card is at the top.
  useEffect(() => {
    if (latestSendId !== undefined) startedRef.current?.scrollIntoView?.({ behavior: 'smooth', block: 'start' });
  }, [latestSendId]);

  return (
    <>
      <PageHeader
        title="Send Email"
        description="Write once and send to one or more of your mailing lists, now or at a time you choose."
      />
      {waitingSends.length > 0 && (
        <Stack gap="sm" mb="lg">
          {waitingSends.map((send) => (
            <WaitingSendCard key={send.storageId} waiting={send} />
          ))}
        </Stack>
      )}
      {started.length > 0 && (
        <Stack gap="sm" mb="lg" ref={startedRef} style={{ scrollMarginTop: 80 }}>
          {started.map((send) =>
            send.scheduled ? (
              <ScheduledNotice
                key={send.sendId}
                send={send}
                timeZone={content.data?.timeZone ?? ''}
                onDismiss={() => dismiss(send.sendId)}
              />
            ) : (
              <SendProgressCard key={send.sendId} sendId={send.sendId} onDismiss={() => dismiss(send.sendId)} />
            ),
          )}
        </Stack>
      )}
      <QueryStatus query={content} label="Loading" failed="The Send Email page could not be loaded" py="xl" />
      {edit.isError && (
        <LoadFailedAlert title="The email to start from could not be loaded" onRetry={() => void edit.refetch()} />
      )}
      {content.data &&
        (editId === undefined || edit.data) &&
        (content.data.accounts.length === 0 ? (
          <NoAccounts why="Emails go out through one of your sending accounts: Mailgun, an SMTP server or Gmail. You can also try Sendwell with the test inbox." />
        ) : (
          <SendEmailForm
            key={editId ?? 'new'}
            content={content.data}
            initial={edit.data ? fromOldSend(edit.data, content.data.accounts) : undefined}
            onStarted={(send) => setStarted((sends) => [send, ...sends])}
          />
        ))}
    </>
  );
};
