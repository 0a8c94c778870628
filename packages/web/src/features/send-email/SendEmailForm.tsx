import { Button, Group, Text } from '@mantine/core';
import {
  dailyLimitWarning,
  SEND_MESSAGES,
  type TDailyLimitWarning,
  type TDuplicatesResponse,
  type TSendEmailContent,
  type TSendEmailForm,
} from '@sendwell/contracts';
import {
  IconArrowsSplit,
  IconCalendarTime,
  IconClock,
  IconDeviceFloppy,
  IconFlame,
  IconMail,
  IconSend,
  IconUser,
  IconUsers,
} from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useCallback, useMemo, useState } from 'react';
import { ApiError } from '../../app/api';
import { fieldErrors, showError } from '../../app/errors';
import { showSuccess } from '../../app/toasts';
import { useSpamTestFlow } from '../spam-test/SpamTestFlow';
import { spamTestFieldErrors, validateSpamTestForm } from '../spam-test/spam-test.form';
import { AbTestFields } from './AbTestFields';
import { ComposeForm, ComposeSection } from './ComposeLayout';
import { DeliveryTimePicker, type TDeliveryValue } from './DeliveryTimePicker';
import { EmailPreview } from './EmailPreview';
import { ListsField } from './ListsField';
import { MessageFields } from './MessageFields';
import { DailyLimitModal, DuplicatesModal, SendConfirmModal } from './SendConfirmModals';
import { SenderFields } from './SenderFields';
import {
  abTestSummary,
  fieldId,
  firstErrorField,
  fromLine,
  hasDeliveryTime,
  initialSendFormValues,
  type TFieldErrors,
  type TSendField,
  type TSendFormValues,
  toFieldErrors,
  validateSendForm,
  withoutErrorsOf,
} from './send-email.form';
import { sendEmailKeys, useAccountLists, useCheckDuplicates, useSendEmail } from './send-email.queries';
import { type TVerifyThenSendOffer, VerifyThenSendModal } from './VerifyThenSendModal';

/** A send the page has started, shown above the form. */
export type TStartedSend = { sendId: number; scheduled: boolean; deliveryTime: string; subject: string };

/** Where the send flow (spec §4) stands between the Send button and the send. */
type TFlow =
  | { step: 'duplicates'; check: TDuplicatesResponse }
  | { step: 'dailyLimit'; check: TDuplicatesResponse; warning: Exclude<TDailyLimitWarning, { kind: 'none' }> }
  | { step: 'confirm'; check: TDuplicatesResponse; isSendLater: boolean };

/** The fields a change clears the error of; the picker's two inputs share the delivery time's. */
const fieldsOf = (patch: Partial<TSendFormValues>): TSendField[] =>
  Object.keys(patch).map((key) => (key === 'deliveryDate' || key === 'deliverySlot' ? 'delivery' : key) as TSendField);

/** After a send the form is ready for the next email from the same sender. */
const afterSend = (values: TSendFormValues): TSendFormValues => ({
  ...initialSendFormValues(Number(values.account)),
  senderName: values.senderName,
  alias: values.alias,
  useSubdomain: values.useSubdomain,
  trackOpens: values.trackOpens,
  trackClicks: values.trackClicks,
  abWaitValue: values.abWaitValue,
  abWaitUnit: values.abWaitUnit,
  abMetric: values.abMetric,
  abTestPercent: values.abTestPercent,
});

type TProps = {
  content: TSendEmailContent;
  onStarted?: (send: TStartedSend) => void;
  /** A starting point (an old send, from History's edit link); the rest as for a new send. */
  initial?: Partial<TSendFormValues>;
  /**
   * Edit Scheduled Email (spec §2: the same form): the delivery time is required, and the
   * checked form is handed to `onSave` instead of the send flow's confirmations.
   */
  edit?: { onSave: (request: TSendEmailForm) => void; isSaving: boolean };
};

/** The Send Email form and its flow: check, duplicates, daily limit, confirm, send. */
export const SendEmailForm = ({ content, onStarted, initial, edit }: TProps) => {
  const queryClient = useQueryClient();
  const [values, setValues] = useState(() => ({
    ...initialSendFormValues(initial?.account ? Number(initial.account) : content.chosenAccount),
    ...initial,
  }));
  const [errors, setErrors] = useState<TFieldErrors>({});
  const [flow, setFlow] = useState<TFlow | null>(null);
  // The verify-lists upsell, opened from the confirmation; the flow waits behind it.
  const [upsell, setUpsell] = useState<{ offer: TVerifyThenSendOffer; back: TFlow } | null>(null);
  const checkDuplicates = useCheckDuplicates();
  const sendEmail = useSendEmail();
  const usableCredits = content.totalCredit - content.usedCredit;

  const accountId = Number(values.account);
  const account = content.accounts.find((candidate) => candidate.id === accountId);
  const isStartingAccount = accountId === content.chosenAccount;
  const otherAccount = useAccountLists(isStartingAccount || !account ? null : accountId);
  const audience = isStartingAccount
    ? {
        lists: content.mailingLists,
        isSmtp: content.isSmtp,
        smtpLimit: content.smtpLimit,
        dailyCount: content.dailyCount,
      }
    : otherAccount.data
      ? {
          lists: otherAccount.data.listData,
          isSmtp: otherAccount.data.isSmtp,
          smtpLimit: otherAccount.data.smtpLimit,
          dailyCount: otherAccount.data.dailyCount,
        }
      : null;
  // The same lists keep the same array, so the preview skips the keystrokes that change none.
  const chosenLists = useMemo(
    () => (audience?.lists ?? []).filter((list) => values.to.includes(String(list.id))),
    [audience?.lists, values.to],
  );
  const listNames = useMemo(() => chosenLists.map((list) => list.name), [chosenLists]);
  const listIds = useMemo(() => chosenLists.map((list) => list.id), [chosenLists]);
  // The A/B split's figures before the check counts the audience (an address on two lists twice).
  const listAudience = chosenLists.length === 0 ? null : chosenLists.reduce((sum, list) => sum + list.subscribed, 0);
  const context = account && {
    provider: account.provider,
    domain: account.domain,
    allowsScheduling: content.allowsScheduling,
    timeZone: content.timeZone,
  };
  // The form as it would be sent, read while the confirmation is open (the pre-send check asks
  // about it; its query is keyed by the request's contents, so a re-render asks nothing again).
  const confirmed = flow?.step === 'confirm' && context ? validateSendForm(values, context) : null;
  const preSendRequest = confirmed?.ok ? confirmed.request : null;

  // Stable, and the errors object kept when nothing is cleared: the memoised sections
  // (sender, lists, delivery time, preview) then skip the keystrokes that are not theirs.
  const update = useCallback((patch: Partial<TSendFormValues>) => {
    setValues((current) => ({ ...current, ...patch }));
    setErrors((current) => withoutErrorsOf(current, fieldsOf(patch)));
  }, []);
  const changeAccount = useCallback((id: string) => update({ account: id, to: [] }), [update]);
  const changeLists = useCallback((to: string[]) => update({ to }), [update]);

  /** Shows each field's message beside it and takes the user to the first. */
  const showFieldErrors = (next: TFieldErrors) => {
    setErrors(next);
    const first = firstErrorField(next);
    if (!first) return;
    // After the render that shows the message (and the editor, when it was hidden).
    setTimeout(() => {
      const input = document.getElementById(fieldId(first));
      input?.focus();
      input?.scrollIntoView?.({ block: 'center', behavior: 'smooth' });
    }, 0);
  };

  const spamTest = useSpamTestFlow({
    usableCredits,
    credits: content.spamTestCredits,
    whenScored: 'dialog',
    onFieldErrors: (fields) => showFieldErrors(spamTestFieldErrors(fields)),
  });

  /** Test My Mail: the sender, subject and message are checked as for a send; lists are not needed. */
  const testMyMail = () => {
    if (!context) return;
    const result = validateSpamTestForm(values, context);
    if (!result.ok) showFieldErrors(result.errors);
    else spamTest.begin(result.request);
  };

  const openConfirm = (check: TDuplicatesResponse) =>
    setFlow({ step: 'confirm', check, isSendLater: hasDeliveryTime(values) });

  const afterDuplicates = (check: TDuplicatesResponse) => {
    // The cap counts what went out in the last 24 hours; a scheduled email is held by the server when its time comes.
    const warning =
      audience?.isSmtp && !hasDeliveryTime(values)
        ? dailyLimitWarning(audience.smtpLimit, audience.dailyCount, check.recipients)
        : ({ kind: 'none' } as const);
    if (warning.kind === 'none') openConfirm(check);
    else setFlow({ step: 'dailyLimit', check, warning });
  };

  const afterCheck = (check: TDuplicatesResponse) => {
    if (check.duplicates > 0) setFlow({ step: 'duplicates', check });
    else afterDuplicates(check);
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!context) return;
    const result = validateSendForm(values, context);
    if (edit) {
      // Editing a scheduled email: a delivery time is required (blank would mean "send now").
      const errors = result.ok ? {} : { ...result.errors };
      if (!hasDeliveryTime(values)) errors.delivery ??= SEND_MESSAGES.deliveryRequired;
      if (!result.ok || Object.keys(errors).length > 0) showFieldErrors(errors);
      else edit.onSave(result.request);
      return;
    }
    if (!result.ok) {
      showFieldErrors(result.errors);
      return;
    }
    // Unverified addresses are said once, in the confirmation, with the cost and "Verify, then send".
    checkDuplicates.mutate(result.request.to, { onSuccess: afterCheck });
  };

  const scheduleInstead = () => {
    setFlow(null);
    setTimeout(() => {
      const picker = document.getElementById(fieldId('delivery'));
      picker?.focus();
      picker?.scrollIntoView?.({ block: 'center', behavior: 'smooth' });
    }, 0);
  };

  const changeSendLater = (isSendLater: boolean) => {
    if (flow?.step !== 'confirm') return;
    setFlow({ ...flow, isSendLater });
    if (!isSendLater) update({ deliveryDate: null, deliverySlot: null });
  };

  const confirmSend = () => {
    if (!context || flow?.step !== 'confirm') return;
    if (flow.isSendLater && !hasDeliveryTime(values)) {
      setErrors({ delivery: SEND_MESSAGES.deliveryRequired });
      return;
    }
    const result = validateSendForm(values, context);
    if (!result.ok) {
      // A delivery time is fixed inside the dialog; anything else changed since the check is fixed on the form.
      if (firstErrorField(result.errors) === 'delivery' && flow.isSendLater) setErrors(result.errors);
      else {
        setFlow(null);
        showFieldErrors(result.errors);
      }
      return;
    }
    sendEmail.mutate(result.request, {
      onSuccess: ({ message, sendId, scheduled }) => {
        setFlow(null);
        showSuccess(message);
        if (sendId !== null) {
          onStarted?.({ sendId, scheduled, deliveryTime: result.request.delivery, subject: result.request.subject });
        }
        afterSent();
      },
      onError: (error) => {
        const fields = error instanceof ApiError && error.status === 422 ? toFieldErrors(fieldErrors(error)) : {};
        if (Object.keys(fields).length > 0) {
          setFlow(null);
          showFieldErrors(fields);
          return;
        }
        showError(error);
      },
    });
  };

  /** The form is ready for the next email; today's count of an SMTP account moved, the lists' next check starts fresh. */
  const afterSent = () => {
    setValues(afterSend(values));
    setErrors({});
    void queryClient.invalidateQueries({ queryKey: sendEmailKeys.content });
    void queryClient.invalidateQueries({ queryKey: ['send-email', 'account-lists'] });
  };

  /** The confirmation's "Verify, then send": the upsell takes the form as it would be sent now. */
  const openVerifyThenSend = () => {
    if (!context || flow?.step !== 'confirm') return;
    const result = validateSendForm(values, context);
    if (!result.ok) {
      setFlow(null);
      showFieldErrors(result.errors);
      return;
    }
    setUpsell({
      offer: { request: result.request, unverified: flow.check.unverified, recipients: flow.check.recipients },
      back: flow,
    });
    setFlow(null);
  };

  const delivery: TDeliveryValue = useMemo(
    () => ({ deliveryDate: values.deliveryDate, deliverySlot: values.deliverySlot }),
    [values.deliveryDate, values.deliverySlot],
  );
  const isScheduling = hasDeliveryTime(values);

  return (
    <>
      <ComposeForm
        label="Send Email"
        onSubmit={submit}
        preview={
          <EmailPreview
            html={values.message}
            subject={values.subject}
            from={fromLine(values, account)}
            to={listNames}
            listIds={listIds}
          />
        }
      >
        <ComposeSection icon={<IconUser size={16} />} title="From">
          <SenderFields
            values={values}
            errors={errors}
            accounts={content.accounts}
            account={account}
            onChange={update}
            onAccountChange={changeAccount}
          />
        </ComposeSection>
        <ComposeSection icon={<IconUsers size={16} />} title="To">
          <ListsField lists={audience?.lists ?? null} value={values.to} error={errors.to} onChange={changeLists} />
        </ComposeSection>
        <ComposeSection icon={<IconMail size={16} />} title="Message">
          <MessageFields values={values} errors={errors} templates={content.templates} onChange={update} />
        </ComposeSection>
        {!edit && (
          <ComposeSection icon={<IconArrowsSplit size={16} />} title="A/B test">
            <AbTestFields values={values} errors={errors} audience={listAudience} onChange={update} />
          </ComposeSection>
        )}
        <ComposeSection icon={<IconClock size={16} />} title={edit ? 'Delivery time' : 'Send later'}>
          {values.abTest ? (
            // An A/B test is sent now (its decision waits for the test parts): no time to pick.
            <Text size="sm" c="dimmed" data-testid="ab-test-sends-now">
              An A/B test goes out now: the winner goes to the rest after the wait.
            </Text>
          ) : (
            <DeliveryTimePicker
              id={fieldId('delivery')}
              value={delivery}
              onChange={update}
              timeZone={content.timeZone}
              allowsScheduling={content.allowsScheduling}
              isRequired={edit !== undefined}
              error={flow ? undefined : errors.delivery}
            />
          )}
        </ComposeSection>
        <Group justify="space-between">
          <Text size="sm" c="dimmed">
            {edit
              ? 'The recipients are taken from the lists when it goes out.'
              : 'You confirm the recipients before anything goes out.'}
          </Text>
          <Group gap="sm">
            {/* Spec §5: offered only from the test's price in usable credits (0 with BILLING=off). */}
            {usableCredits >= content.spamTestCredits && (
              <Button
                variant="default"
                size="md"
                leftSection={<IconFlame size={18} aria-hidden />}
                onClick={testMyMail}
                loading={spamTest.isBusy}
                disabled={!account}
              >
                Test My Mail
              </Button>
            )}
            <Button
              type="submit"
              size="md"
              leftSection={
                edit ? (
                  <IconDeviceFloppy size={18} aria-hidden />
                ) : isScheduling ? (
                  <IconCalendarTime size={18} aria-hidden />
                ) : (
                  <IconSend size={18} aria-hidden />
                )
              }
              loading={edit ? edit.isSaving : checkDuplicates.isPending}
              disabled={!account}
            >
              {edit ? 'Save changes' : isScheduling ? 'Schedule' : 'Send'}
            </Button>
          </Group>
        </Group>
      </ComposeForm>
      {/* Outside the form: Enter in a dialog's input must not submit the form again. */}
      {spamTest.modals}
      <DuplicatesModal
        count={flow?.step === 'duplicates' ? flow.check.duplicates : null}
        onContinue={() => flow && afterDuplicates(flow.check)}
        onCancel={() => setFlow(null)}
      />
      <DailyLimitModal
        warning={flow?.step === 'dailyLimit' ? flow.warning : null}
        onContinue={() => flow && openConfirm(flow.check)}
        onScheduleInstead={scheduleInstead}
        onCancel={() => setFlow(null)}
      />
      <SendConfirmModal
        summary={
          flow?.step === 'confirm'
            ? {
                from: fromLine(values, account),
                subject: values.subject,
                abTest: values.abTest ? abTestSummary(values, flow.check.recipients) : null,
                lists: chosenLists.map((list) => ({ id: list.id, name: list.name })),
                check: flow.check,
                request: preSendRequest,
              }
            : null
        }
        isSendLater={flow?.step === 'confirm' && flow.isSendLater}
        onSendLaterChange={changeSendLater}
        delivery={delivery}
        onDeliveryChange={update}
        deliveryError={errors.delivery}
        timeZone={content.timeZone}
        allowsScheduling={content.allowsScheduling}
        isSending={sendEmail.isPending}
        onConfirm={confirmSend}
        onCancel={() => setFlow(null)}
        onVerifyThenSend={edit ? undefined : openVerifyThenSend}
      />
      <VerifyThenSendModal
        offer={upsell?.offer ?? null}
        onBack={() => {
          setFlow(upsell?.back ?? null);
          setUpsell(null);
        }}
        onClose={() => setUpsell(null)}
        onStarted={({ sendId, scheduled }) => {
          const request = upsell?.offer.request;
          if (sendId !== null && request) {
            onStarted?.({ sendId, scheduled, deliveryTime: request.delivery, subject: request.subject });
          }
          afterSent();
        }}
      />
    </>
  );
};
