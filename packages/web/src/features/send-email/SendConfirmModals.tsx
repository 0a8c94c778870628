import { Alert, Button, Group, List, Modal, Stack, Switch, Table, Text } from '@mantine/core';
import {
  duplicatesWarning,
  type TDailyLimitWarning,
  type TDuplicatesResponse,
  type TSendEmailForm,
} from '@sendwell/contracts';
import { IconAlertTriangle, IconCalendarTime, IconCopy, IconSend } from '@tabler/icons-react';
import { DialogActions } from '../../components/DialogActions';
import { useRetained } from '../lists/useRetained';
import { DeliveryTimePicker, type TDeliveryValue } from './DeliveryTimePicker';
import { PreSendChecklist } from './PreSendChecklist';
import { ScheduleUpgradeNote } from './ScheduleUpgradeNote';
import { usePreSendCheck } from './send-email.queries';
import { UnverifiedWarning } from './UnverifiedWarning';

/** Addresses on more than one chosen list: each gets the email once, and the user is told so. */
export const DuplicatesModal = ({
  count,
  onContinue,
  onCancel,
}: {
  count: number | null;
  onContinue: () => void;
  onCancel: () => void;
}) => {
  const shown = useRetained(count);
  return (
    <Modal opened={count !== null} onClose={onCancel} title="Duplicate addresses">
      <Stack>
        <Group gap="sm" wrap="nowrap" align="flex-start">
          <IconCopy size={22} color="var(--mantine-color-yellow-7)" aria-hidden style={{ flexShrink: 0 }} />
          <Text size="sm">{duplicatesWarning(shown ?? 0)}</Text>
        </Group>
        <DialogActions onCancel={onCancel}>
          <Button onClick={onContinue} data-autofocus>
            Continue
          </Button>
        </DialogActions>
      </Stack>
    </Modal>
  );
};

type TShownWarning = Exclude<TDailyLimitWarning, { kind: 'none' }>;

/**
 * SMTP and Gmail accounts have a daily cap (spec §9), counted over the last 24 hours. With part
 * of the balance left the user may go on; with none left they may schedule the email instead,
 * or come back tomorrow (within 24 hours all of it is back).
 */
export const DailyLimitModal = ({
  warning,
  onContinue,
  onScheduleInstead,
  onCancel,
}: {
  warning: TShownWarning | null;
  onContinue: () => void;
  onScheduleInstead: () => void;
  onCancel: () => void;
}) => {
  const shown = useRetained(warning);
  return (
    <Modal
      opened={warning !== null}
      onClose={onCancel}
      title="Daily sending limit"
      // "Schedule instead" moves the focus to the picker; the modal must not take it back.
      returnFocus={false}
    >
      <Stack>
        <Alert color="yellow" icon={<IconAlertTriangle size={18} />}>
          {shown?.message}
        </Alert>
        <DialogActions onCancel={onCancel}>
          {shown?.kind === 'zero' ? (
            <Button leftSection={<IconCalendarTime size={16} aria-hidden />} onClick={onScheduleInstead} data-autofocus>
              Schedule instead
            </Button>
          ) : (
            <Button onClick={onContinue} data-autofocus>
              Continue
            </Button>
          )}
        </DialogActions>
      </Stack>
    </Modal>
  );
};

export type TSendSummary = {
  from: string;
  subject: string;
  /** An A/B subject test's plan in words (issue 31 §4), or null. */
  abTest?: string | null;
  lists: { id: number; name: string }[];
  check: TDuplicatesResponse;
  /** The form as it would be sent, for the pre-send check (issue 31); null when it cannot be read. */
  request?: TSendEmailForm | null;
};

type TConfirmProps = {
  summary: TSendSummary | null;
  isSendLater: boolean;
  onSendLaterChange: (isSendLater: boolean) => void;
  delivery: TDeliveryValue;
  onDeliveryChange: (value: TDeliveryValue) => void;
  deliveryError?: string;
  timeZone: string;
  allowsScheduling: boolean;
  isSending: boolean;
  onConfirm: () => void;
  onCancel: () => void;
  /** Verify the lists first and send once they are verified (the verify-lists upsell). */
  onVerifyThenSend?: () => void;
};

/** The last step before sending: who it is from, to which lists and how many people, now or later. */
export const SendConfirmModal = ({
  summary,
  isSendLater,
  onSendLaterChange,
  delivery,
  onDeliveryChange,
  deliveryError,
  timeZone,
  allowsScheduling,
  isSending,
  onConfirm,
  onCancel,
  onVerifyThenSend,
}: TConfirmProps) => {
  const shown = useRetained(summary);
  const preSend = usePreSendCheck(summary?.request ?? null);
  const hasFailures = preSend.data?.hasFailures === true;
  return (
    <Modal opened={summary !== null} onClose={onCancel} title="Send this email?" size="lg">
      {shown && (
        <Stack>
          <Table variant="vertical" withTableBorder layout="fixed">
            <Table.Tbody>
              <Table.Tr>
                <Table.Th w={120}>From</Table.Th>
                <Table.Td style={{ overflowWrap: 'anywhere' }}>{shown.from}</Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th>Subject</Table.Th>
                <Table.Td style={{ overflowWrap: 'anywhere' }}>{shown.subject}</Table.Td>
              </Table.Tr>
              {shown.abTest && (
                <Table.Tr>
                  <Table.Th>A/B test</Table.Th>
                  <Table.Td data-testid="confirm-ab-test">{shown.abTest}</Table.Td>
                </Table.Tr>
              )}
              <Table.Tr>
                <Table.Th>Lists</Table.Th>
                <Table.Td>
                  <List size="sm" listStyleType="none">
                    {shown.lists.map((list) => (
                      <List.Item key={list.id}>{list.name}</List.Item>
                    ))}
                  </List>
                </Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th>Recipients</Table.Th>
                <Table.Td data-testid="confirm-recipients">{shown.check.recipients.toLocaleString('en-US')}</Table.Td>
              </Table.Tr>
            </Table.Tbody>
          </Table>
          <UnverifiedWarning
            unverified={shown.check.unverified}
            recipients={shown.check.recipients}
            listIds={shown.lists.map((list) => list.id)}
            onVerifyThenSend={onVerifyThenSend}
          />
          {shown.request && (
            <PreSendChecklist
              check={preSend.data}
              isPending={preSend.isPending}
              isError={preSend.isError}
              onRetry={() => void preSend.refetch()}
              // When there are some, the warning above says it, with the cost and a way to verify: said once.
              shownAbove={shown.check.unverified > 0 ? ['unverified'] : []}
            />
          )}
          <Switch
            label="Send later"
            description={
              shown.abTest
                ? 'An A/B test goes out now: its winner is chosen after the wait.'
                : allowsScheduling
                  ? 'Pick a day and a time instead of sending now.'
                  : undefined
            }
            checked={isSendLater && !shown.abTest}
            disabled={!allowsScheduling || Boolean(shown.abTest)}
            onChange={(event) => onSendLaterChange(event.currentTarget.checked)}
          />
          {!allowsScheduling && <ScheduleUpgradeNote />}
          {isSendLater && (
            <DeliveryTimePicker
              id="send-confirm-delivery"
              value={delivery}
              onChange={onDeliveryChange}
              timeZone={timeZone}
              allowsScheduling={allowsScheduling}
              error={deliveryError}
            />
          )}
          <DialogActions onCancel={onCancel} isPending={isSending}>
            <Button
              leftSection={
                isSendLater ? <IconCalendarTime size={16} aria-hidden /> : <IconSend size={16} aria-hidden />
              }
              onClick={onConfirm}
              loading={isSending}
              color={hasFailures ? 'red' : undefined}
              data-autofocus
            >
              Yes, send it
            </Button>
          </DialogActions>
        </Stack>
      )}
    </Modal>
  );
};
