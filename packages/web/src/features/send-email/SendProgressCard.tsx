import {
  Alert,
  Badge,
  Button,
  Center,
  CloseButton,
  Group,
  Loader,
  Modal,
  Paper,
  Progress,
  SimpleGrid,
  Stack,
  Text,
} from '@mantine/core';
import { progressOf, type TSendProgress } from '@sendwell/contracts';
import {
  IconInfoCircle,
  IconPlayerPause,
  IconPlayerPlay,
  IconQuestionMark,
  IconShieldExclamation,
  IconX,
} from '@tabler/icons-react';
import { useState } from 'react';
import { showSuccess } from '../../app/toasts';
import { LoadFailedAlert } from '../../components/LoadFailedAlert';
import {
  isSendActive,
  type TSendAction,
  useSendAction,
  useSendProgress,
  useSendProgressEvents,
} from './send-email.queries';

const STATUS_COLORS: Record<TSendProgress['status'], string> = {
  scheduled: 'grape',
  queued: 'gray',
  snapshotting: 'cyan',
  sending: 'blue',
  paused: 'yellow',
  cancelled: 'gray',
  finished: 'green',
  failed: 'red',
  held: 'grape',
};

/** What the status means to the user, beside the badge. */
const STATUS_TEXT: Record<TSendProgress['status'], string> = {
  scheduled: 'Waiting for its delivery time.',
  queued: 'Waiting for a sender to pick it up…',
  snapshotting: 'Collecting the recipients of the chosen lists…',
  sending: 'Handing the messages to the provider…',
  paused: 'Paused: nothing more goes out until you resume.',
  cancelled: 'Cancelled: nothing more goes out.',
  finished: 'Done: every recipient has been handled.',
  failed: 'The send stopped.',
  held: 'Waiting for its A/B test: it goes to these recipients with the winning subject.',
};

/** Which actions each status allows; the server checks them again. */
const actionsOf = (status: TSendProgress['status']): TSendAction[] => {
  switch (status) {
    case 'queued':
    case 'snapshotting':
    case 'sending':
      return ['pause', 'cancel'];
    case 'paused':
      return ['resume', 'cancel'];
    case 'scheduled':
    case 'held':
      return ['cancel'];
    case 'cancelled':
    case 'finished':
    case 'failed':
      return [];
  }
};

const Count = ({ label, value, color }: { label: string; value: number; color?: string }) => (
  <Stack gap={0}>
    <Text size="xs" c="dimmed">
      {label}
    </Text>
    <Text size="lg" fw={700} c={color}>
      {value.toLocaleString('en-US')}
    </Text>
  </Stack>
);

const CancelSendModal = ({
  opened,
  isPending,
  onConfirm,
  onClose,
}: {
  opened: boolean;
  isPending: boolean;
  onConfirm: () => void;
  onClose: () => void;
}) => (
  <Modal opened={opened} onClose={onClose} title="Cancel this send?">
    <Stack>
      <Text size="sm">
        Recipients who have not been sent the email yet will not get it. Messages already accepted by the provider
        cannot be called back.
      </Text>
      <Group justify="flex-end">
        <Button variant="default" onClick={onClose} disabled={isPending}>
          Keep sending
        </Button>
        <Button color="red" onClick={onConfirm} loading={isPending} data-autofocus>
          Cancel the send
        </Button>
      </Group>
    </Stack>
  </Modal>
);

const ProgressBody = ({ send }: { send: TSendProgress }) => {
  const action = useSendAction(send.id);
  const [isCancelling, setIsCancelling] = useState(false);
  const [isResending, setIsResending] = useState(false);
  // Settled recipients, each once: a bounce after acceptance is in Sent and Failed both (R33).
  const { handled, percent } = progressOf({ recipients: send.recipients_count, waiting: send.waiting_count });
  const stillSent = Math.max(0, handled - send.failed_count - send.unknown_count);
  const isRunning = send.status === 'sending' || send.status === 'snapshotting' || send.status === 'queued';

  const run = (name: TSendAction) =>
    action.mutate(name, {
      onSuccess: ({ message }) => {
        showSuccess(message, null);
        setIsCancelling(false);
        setIsResending(false);
      },
    });

  return (
    <Stack gap="sm">
      <Group justify="space-between" wrap="nowrap" gap="xs">
        <Text size="sm" c="dimmed">
          {STATUS_TEXT[send.status]}
        </Text>
        <Badge
          color={STATUS_COLORS[send.status]}
          variant="light"
          data-testid="send-status"
          style={{ flexShrink: 0, overflow: 'visible' }}
        >
          {send.status}
        </Badge>
      </Group>
      {/* Each section is a progressbar of its own, so each needs a name; the root only groups them. */}
      <Progress.Root size="lg" role="group" aria-label={`Progress of “${send.subject}”`}>
        <Progress.Section
          aria-label="Sent"
          value={send.recipients_count > 0 ? (stillSent / send.recipients_count) * 100 : 0}
          color="green"
          animated={isRunning}
          striped={isRunning}
        />
        <Progress.Section
          aria-label="Failed"
          value={send.recipients_count > 0 ? (send.failed_count / send.recipients_count) * 100 : 0}
          color="red"
        />
      </Progress.Root>
      <Text size="sm" aria-live="polite">
        {handled.toLocaleString('en-US')} of {send.recipients_count.toLocaleString('en-US')} recipients handled (
        {Math.floor(percent)}%)
      </Text>
      <SimpleGrid cols={{ base: 2, xs: send.unknown_count > 0 ? 4 : 3 }} spacing="sm">
        <Count label="Sent" value={send.sent_count} color="green" />
        <Count label="Failed" value={send.failed_count} color={send.failed_count > 0 ? 'red' : undefined} />
        <Count label="Waiting" value={send.waiting_count} />
        {send.unknown_count > 0 && <Count label="Unknown" value={send.unknown_count} color="orange" />}
      </SimpleGrid>
      {send.unknown_count > 0 && (
        <Alert color="orange" icon={<IconQuestionMark size={18} aria-hidden />} title="Outcome unknown">
          <Stack gap="xs" align="flex-start">
            <Text size="sm">
              For {send.unknown_count.toLocaleString('en-US')} recipient{send.unknown_count === 1 ? '' : 's'} the
              provider's answer never came (the connection was lost, or Sendwell stopped, while the message was being
              handed over). The message may have been delivered, so Sendwell does not send it again on its own.
            </Text>
            {!isRunning && send.status !== 'cancelled' && send.status !== 'failed' && (
              <Button variant="default" size="xs" onClick={() => setIsResending(true)}>
                Send again to {send.unknown_count.toLocaleString('en-US')} unknown
              </Button>
            )}
          </Stack>
        </Alert>
      )}
      {send.status === 'paused' && send.breaker_reason ? (
        <Alert
          color="orange"
          icon={<IconShieldExclamation size={18} aria-hidden />}
          title="Paused by Sendwell to protect your sender"
          data-testid="breaker-reason"
        >
          <Text size="sm">{send.breaker_reason}</Text>
          {send.breaker && (
            <Text size="sm" mt={4} data-testid="breaker-live">
              {breakerFiguresText(send.breaker)}
            </Text>
          )}
          <Text size="sm" mt={4}>
            Resume to send to the others anyway (the messages after the resume are judged again), or cancel.
          </Text>
        </Alert>
      ) : send.status === 'sending' && send.breaker?.judged_from ? (
        <Alert
          color="blue"
          icon={<IconShieldExclamation size={18} aria-hidden />}
          title="Resumed after a pause by the breaker"
          data-testid="breaker-resumed"
        >
          <Text size="sm">
            The messages since you resumed it are judged again against your limits: {breakerFiguresText(send.breaker)}
          </Text>
        </Alert>
      ) : (
        send.note && (
          <Alert color={send.status === 'failed' ? 'red' : 'blue'} icon={<IconInfoCircle size={18} />}>
            {send.note}
          </Alert>
        )
      )}
      {actionsOf(send.status).length > 0 && (
        <Group gap="xs">
          {actionsOf(send.status).includes('pause') && (
            <Button
              variant="default"
              size="xs"
              leftSection={<IconPlayerPause size={14} aria-hidden />}
              loading={action.isPending && action.variables === 'pause'}
              onClick={() => run('pause')}
            >
              Pause
            </Button>
          )}
          {actionsOf(send.status).includes('resume') && (
            <Button
              size="xs"
              leftSection={<IconPlayerPlay size={14} aria-hidden />}
              loading={action.isPending && action.variables === 'resume'}
              onClick={() => run('resume')}
            >
              Resume
            </Button>
          )}
          <Button
            variant="light"
            color="red"
            size="xs"
            leftSection={<IconX size={14} aria-hidden />}
            onClick={() => setIsCancelling(true)}
          >
            Cancel
          </Button>
        </Group>
      )}
      <Modal opened={isResending} onClose={() => setIsResending(false)} title="Send again to the unknown recipients?">
        <Stack>
          <Text size="sm">
            Some of them may already have the email and will get it a second time. The others get it now.
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setIsResending(false)}>
              Not now
            </Button>
            <Button
              onClick={() => run('resend-unknown')}
              loading={action.isPending && action.variables === 'resend-unknown'}
              data-autofocus
            >
              Yes, send again
            </Button>
          </Group>
        </Stack>
      </Modal>
      <CancelSendModal
        opened={isCancelling}
        isPending={action.isPending && action.variables === 'cancel'}
        onConfirm={() => run('cancel')}
        onClose={() => setIsCancelling(false)}
      />
    </Stack>
  );
};

/** One send's progress, live: `SendProgressEvent` updates it, a poll covers a dropped socket. */
/** The breaker's live figures in words: what it judges now, beside its reason (which is a snapshot). */
const breakerFiguresText = (breaker: NonNullable<TSendProgress['breaker']>) => {
  const count = (value: number, one: string, many: string) =>
    `${value.toLocaleString('en-US')} ${value === 1 ? one : many}`;
  return `Now: ${count(breaker.hard_bounces, 'hard bounce', 'hard bounces')} and ${count(breaker.complaints, 'complaint', 'complaints')} of ${count(breaker.attempts, 'message', 'messages')}${breaker.judged_from ? ' since the resume' : ''}.`;
};

export const SendProgressCard = ({ sendId, onDismiss }: { sendId: number; onDismiss?: () => void }) => {
  const progress = useSendProgress(sendId);
  useSendProgressEvents(sendId);
  const send = progress.data;

  return (
    <Paper
      withBorder
      p="md"
      radius="md"
      shadow="xs"
      component="section"
      aria-label="Send progress"
      data-testid="send-progress"
    >
      <Group justify="space-between" align="flex-start" mb="xs" wrap="nowrap">
        <Stack gap={0} style={{ minWidth: 0 }}>
          <Text fw={600} truncate>
            {send ? send.subject : 'Your send'}
          </Text>
          {send && (
            <Text size="xs" c="dimmed" truncate>
              {send.from} → {send.to}
            </Text>
          )}
        </Stack>
        {onDismiss && (!send || !isSendActive(send.status)) && (
          <CloseButton size="sm" aria-label="Dismiss" onClick={onDismiss} />
        )}
      </Group>
      {progress.isPending && (
        <Center py="sm">
          <Loader size="sm" aria-label="Loading the send" />
        </Center>
      )}
      {progress.isError && (
        <LoadFailedAlert title="The progress could not be loaded" onRetry={() => void progress.refetch()} />
      )}
      {send && <ProgressBody send={send} />}
    </Paper>
  );
};
