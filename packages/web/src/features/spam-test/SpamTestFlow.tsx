import { Alert, Button, Group, Loader, Modal, Stack, Stepper, Text } from '@mantine/core';
import {
  counted,
  SPAM_TEST_MESSAGES,
  SPAM_TEST_POLL_MS,
  SPAM_TEST_POLLS,
  type TLimitDialog,
  type TSpamTestRequest,
  ZLimitDialog,
} from '@sendwell/contracts';
import { IconExternalLink, IconFlame } from '@tabler/icons-react';
import { type ReactNode, useEffect, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { ApiError } from '../../app/api';
import { fieldErrors, showError } from '../../app/errors';
import { DialogActions } from '../../components/DialogActions';
import { PreSendChecklist } from '../send-email/PreSendChecklist';
import { useSpamTestPreSendCheck } from '../send-email/send-email.queries';
import { ScoreGauge } from './ScoreGauge';
import { resultPath, useSpamTestEvents, useSpamTestResult, useStartSpamTest } from './spam-test.queries';

/** Where a spam test stands between the Test button and its score (spec §4 spam test). */
type TStep =
  | { step: 'confirm'; request: TSpamTestRequest }
  | { step: 'waiting'; id: number; to: string; polls: number }
  | { step: 'slow'; id: number }
  | { step: 'scored'; id: number }
  | { step: 'limit'; dialog: TLimitDialog };

type TOptions = {
  usableCredits: number;
  /** What a test costs here (the server's configured price; 0 when tests are free). */
  credits: number;
  /** A 422 from the server: the form shows each message beside its field. */
  onFieldErrors: (errors: Record<string, string>) => void;
  /** The test page goes straight to the result; the send page shows it in a dialog and stays. */
  whenScored: 'navigate' | 'dialog';
};

const STAGES = ['waiting', 'received', 'scored'] as const;

/** "100 credits", "1 credit". */
export const creditsText = (credits: number) => counted(credits, 'credit');

/**
 * The spam test's flow: confirm the credits, send, wait ('Please wait…', the realtime event
 * or a poll every 15 s, at most 4), then the score, or the 5-minute notice with the history.
 */
export const useSpamTestFlow = ({ usableCredits, credits, onFieldErrors, whenScored }: TOptions) => {
  const [state, setState] = useState<TStep | null>(null);
  const start = useStartSpamTest();
  const navigate = useNavigate();
  useSpamTestEvents();
  const testId = state && 'id' in state ? state.id : null;
  const result = useSpamTestResult(testId);
  const status = result.data?.status;
  const preSend = useSpamTestPreSendCheck(state?.step === 'confirm' ? state.request : null);

  // Polls (spec: every 15 s, 4 times); the realtime event usually answers long before the first.
  const waitingId = state?.step === 'waiting' ? state.id : null;
  useEffect(() => {
    if (waitingId === null) return;
    const timer = setInterval(() => {
      void result.refetch();
      setState((current) =>
        current?.step !== 'waiting'
          ? current
          : current.polls + 1 >= SPAM_TEST_POLLS
            ? { step: 'slow', id: current.id }
            : { ...current, polls: current.polls + 1 },
      );
    }, SPAM_TEST_POLL_MS);
    return () => clearInterval(timer);
  }, [waitingId, result.refetch]);

  useEffect(() => {
    if (state?.step !== 'waiting' && state?.step !== 'slow') return;
    if (status === 'scored') {
      if (whenScored === 'navigate') {
        setState(null);
        navigate(resultPath(state.id));
      } else setState({ step: 'scored', id: state.id });
    } else if (status === 'failed') {
      setState(null);
      showError(new ApiError(409, { message: result.data?.error ?? 'The test email did not arrive.' }));
    }
  }, [status, state, whenScored, navigate, result.data?.error]);

  const send = () => {
    if (state?.step !== 'confirm') return;
    start.mutate(state.request, {
      onSuccess: ({ data }) => setState({ step: 'waiting', id: data.mail, to: data.to, polls: 0 }),
      onError: (error) => {
        const dialog = error instanceof ApiError ? ZLimitDialog.safeParse(error.body.errorData) : null;
        if (error instanceof ApiError && error.body.code === 'ERR_LIMIT' && dialog?.success) {
          setState({ step: 'limit', dialog: dialog.data });
          return;
        }
        const fields = fieldErrors(error);
        setState(null);
        if (Object.keys(fields).length > 0) onFieldErrors(fields);
        else showError(error);
      },
    });
  };

  const close = () => setState(null);
  const stage = Math.max(0, STAGES.indexOf((status ?? 'waiting') as (typeof STAGES)[number]));

  const modals: ReactNode = (
    <>
      <Modal opened={state?.step === 'confirm'} onClose={close} title="Test your email's spam score" size="lg">
        <Stack>
          <Text size="sm">
            Sendwell sends this email through your account to its test mailbox, checks how it is authenticated and what
            filters make of it, and scores it out of 10.
          </Text>
          {/* Free tests (a single-company install, `BILLING=off`, or a price of 0) say nothing of credits. */}
          {credits > 0 && (
            <Text size="sm">
              A spam test costs <strong>{creditsText(credits)}</strong>; you have{' '}
              {usableCredits.toLocaleString('en-US')}. If the email never arrives, the credits come back.
            </Text>
          )}
          {/* The free check first (issue 31 §1): the same checklist as Send Email's confirmation. */}
          <PreSendChecklist
            check={preSend.data}
            isPending={preSend.isPending}
            isError={preSend.isError}
            onRetry={() => void preSend.refetch()}
            heading="Before the test"
          />
          <DialogActions onCancel={close}>
            <Button
              onClick={send}
              loading={start.isPending}
              leftSection={<IconFlame size={16} aria-hidden />}
              color={preSend.data?.hasFailures ? 'red' : undefined}
              data-autofocus
            >
              Send Test
            </Button>
          </DialogActions>
        </Stack>
      </Modal>
      <Modal
        opened={state?.step === 'waiting'}
        onClose={close}
        title="Testing your email"
        closeButtonProps={{ 'aria-label': 'Close; the result will be in the test history' }}
      >
        <Stack>
          <Group gap="sm" wrap="nowrap">
            <Loader size="sm" aria-hidden />
            <Text size="sm" role="status">
              {SPAM_TEST_MESSAGES.waiting}
            </Text>
          </Group>
          <Stepper active={stage} size="xs" orientation="vertical" allowNextStepsSelect={false}>
            <Stepper.Step label="Sent" description={state?.step === 'waiting' ? `To ${state.to}` : undefined} />
            <Stepper.Step label="Arrived in the test mailbox" />
            <Stepper.Step label="Scored" />
          </Stepper>
        </Stack>
      </Modal>
      <Modal opened={state?.step === 'slow'} onClose={close} title={SPAM_TEST_MESSAGES.slowTitle}>
        <Stack>
          <Text size="sm">{SPAM_TEST_MESSAGES.slowBody}</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Close
            </Button>
            <Button component={Link} to="/tools/mail-testing/history" onClick={close}>
              Open test history
            </Button>
          </Group>
        </Stack>
      </Modal>
      <Modal opened={state?.step === 'scored'} onClose={close} title="Your spam test result">
        {state?.step === 'scored' && result.data?.score != null && (
          <Stack align="center">
            <ScoreGauge score={result.data.score} />
            <Text size="sm" ta="center">
              {result.data.report?.checks.filter((check) => check.penalty > 0).length
                ? 'The result page says what cost points and what to change.'
                : 'Nothing cost points: receivers should take it as it is.'}
            </Text>
            <Group>
              <Button variant="default" onClick={close}>
                Close
              </Button>
              <Button component={Link} to={resultPath(state.id)} data-autofocus>
                Go To Result Page
              </Button>
            </Group>
          </Stack>
        )}
      </Modal>
      <Modal opened={state?.step === 'limit'} onClose={close} title={state?.step === 'limit' ? state.dialog.title : ''}>
        {state?.step === 'limit' && (
          <Stack>
            <Alert color="orange" variant="light">
              {state.dialog.message}
            </Alert>
            <Group justify="flex-end">
              <Button variant="default" color={state.dialog.cancelButtonColor} onClick={close}>
                {state.dialog.cancelButtonText}
              </Button>
              <Button
                color={state.dialog.confirmButtonColor === 'blue' ? undefined : state.dialog.confirmButtonColor}
                rightSection={state.dialog.link ? <IconExternalLink size={14} aria-hidden /> : undefined}
                data-autofocus
                onClick={() => {
                  // The spec: the link opens in a new tab on confirm.
                  if (state.dialog.link) window.open(state.dialog.link, '_blank', 'noopener');
                  close();
                }}
              >
                {state.dialog.confirmButtonText}
              </Button>
            </Group>
          </Stack>
        )}
      </Modal>
    </>
  );

  return {
    begin: (request: TSpamTestRequest) => setState({ step: 'confirm', request }),
    isBusy: start.isPending || state?.step === 'waiting',
    modals,
  };
};
