import { Button, Checkbox, Group, Loader, Modal, Stack, Text } from '@mantine/core';
import {
  counted,
  SEND_MESSAGES,
  type TSendAfterVerification,
  type TSendEmailForm,
  usableCredit,
} from '@sendwell/contracts';
import { IconCircleCheck, IconShieldCheck } from '@tabler/icons-react';
import { useState } from 'react';
import { showError } from '../../app/errors';
import { useRealtimeEvent } from '../../app/realtime';
import { useSignedInUser } from '../../app/session';
import { DialogActions } from '../../components/DialogActions';
import { ShortOfCreditsAlert } from '../credits/ShortOfCreditsAlert';
import { useRetained } from '../lists/useRetained';
import { VerificationProgress } from './VerificationProgress';
import { verifyCostSentence } from './verify-cost';
import { useListsCost, useVerifyThenSend, useWaitingSends } from './waiting-sends.queries';

/** The confirmed send the offer is about. */
export type TVerifyThenSendOffer = {
  /** The form as the confirmation would send it. */
  request: TSendEmailForm;
  unverified: number;
  recipients: number;
};

type TProps = {
  offer: TVerifyThenSendOffer | null;
  /** Back to the confirmation, nothing done. */
  onBack: () => void;
  /** The verification started and the send waits (or, everything checked before, went at once). */
  onStarted: (outcome: { waiting?: TSendAfterVerification; sendId: number | null; scheduled: boolean }) => void;
  onClose: () => void;
};

/**
 * The verify-lists upsell of Send Email (spec §2 screen 2, §4, §7): verify the chosen lists,
 * then send. It says what verifying costs before anything is charged (one credit per address
 * not checked before, against the credits available; Buy Credits when short), whether the
 * addresses found invalid are left out, and once started shows the verification's progress
 * bar; the email goes out by itself when it ends, whether or not this stays open.
 */
export const VerifyThenSendModal = ({ offer, onBack, onStarted, onClose }: TProps) => {
  const shown = useRetained(offer);
  const user = useSignedInUser();
  const [leaveOutInvalid, setLeaveOutInvalid] = useState(true);
  const [storageId, setStorageId] = useState<string | null>(null);
  const listIds = shown?.request.to ?? [];
  const cost = useListsCost(listIds, offer !== null && storageId === null);
  const start = useVerifyThenSend();
  const waitingSends = useWaitingSends();
  const waiting = waitingSends.data?.find((candidate) => candidate.storageId === storageId) ?? null;

  const available = usableCredit(user.credit);
  const credits = cost.data?.count ?? null;
  const isShort = user.billing && credits !== null && credits > available;

  const close = () => {
    setStorageId(null);
    start.reset();
    onClose();
  };
  // The send went out (or could not): the page shows it; this has nothing more to say.
  useRealtimeEvent('UpsellStart', (event) => {
    if (storageId !== null && event.storageId === storageId) close();
  });

  const verifyThenSend = () => {
    if (!shown || credits === null) return;
    start.mutate(
      { request: shown.request, creditsToBeUsed: credits, leaveOutInvalid },
      {
        onSuccess: (sent) => {
          onStarted({ waiting: sent.waiting, sendId: sent.sendId, scheduled: sent.scheduled });
          if (sent.waiting?.status === 'waiting') setStorageId(sent.waiting.storageId);
          else close();
        },
        onError: showError,
      },
    );
  };

  return (
    <Modal opened={offer !== null} onClose={storageId ? close : onBack} title="Verify the lists, then send" size="lg">
      {shown && storageId === null && (
        <Stack>
          <Group gap="sm" wrap="nowrap" align="flex-start">
            <IconShieldCheck size={22} color="var(--mantine-color-yellow-8)" aria-hidden style={{ flexShrink: 0 }} />
            <Text size="sm">
              {counted(shown.unverified, { one: 'recipient was', other: 'recipients were' })} never verified, of{' '}
              {counted(shown.recipients, 'recipient')}. {SEND_MESSAGES.unverified}
            </Text>
          </Group>
          <Text size="sm" data-testid="upsell-cost">
            {verifyCostSentence({ isBilling: user.billing, credits, isCostError: cost.isError, available })}
          </Text>
          {isShort && <ShortOfCreditsAlert data-testid="upsell-short" />}
          <Checkbox
            label="Leave out the addresses found invalid (they are unsubscribed from these lists)"
            checked={leaveOutInvalid}
            onChange={(event) => setLeaveOutInvalid(event.currentTarget.checked)}
          />
          <Text size="sm" c="dimmed">
            The lists show Processing... while their addresses are checked, usually within minutes. The email then goes
            out by itself, as you confirmed it: you can leave this page.
          </Text>
          <DialogActions onCancel={onBack} cancelLabel="Back" isPending={start.isPending}>
            <Button
              leftSection={<IconShieldCheck size={16} aria-hidden />}
              loading={start.isPending}
              disabled={credits === null || isShort}
              onClick={verifyThenSend}
              data-autofocus
            >
              Verify, then send
            </Button>
          </DialogActions>
        </Stack>
      )}
      {storageId !== null && (
        <Stack>
          {waiting ? (
            <VerificationProgress waiting={waiting} />
          ) : (
            <Group gap="sm">
              <Loader size="sm" aria-hidden />
              <Text size="sm">The lists are being verified…</Text>
            </Group>
          )}
          <Group gap="xs" wrap="nowrap" align="flex-start">
            <IconCircleCheck size={18} color="var(--mantine-color-green-7)" aria-hidden style={{ flexShrink: 0 }} />
            <Text size="sm" role="status">
              The email goes out by itself as soon as the lists are verified. You can carry on: its progress stays at
              the top of Send Email.
            </Text>
          </Group>
          <Group justify="flex-end">
            <Button onClick={close} data-autofocus>
              Carry on
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
};
