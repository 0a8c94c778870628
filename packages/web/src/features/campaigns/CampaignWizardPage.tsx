import {
  ActionIcon,
  Alert,
  Button,
  Center,
  Checkbox,
  Group,
  Loader,
  Paper,
  Select,
  Stack,
  Tabs,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import {
  campaignsApi,
  deliveryParts,
  parseDeliveryTime,
  renderMergeFields,
  senderDomain,
  sendsAsSenderNameOnly,
  type TCampaignDraft,
  waitText,
  withSignature,
} from '@sendwell/contracts';
import { IconChevronLeft, IconChevronRight } from '@tabler/icons-react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useMemo, useRef, useState } from 'react';
import { useLocation, useNavigate, useParams } from 'react-router';
import { ApiError, callRoute } from '../../app/api';
import { useFormatDateTime, useTimeZone } from '../../app/dates';
import { fieldErrors, showError } from '../../app/errors';
import { readDocument } from '../../components/email-editor/blocks';
import { LazyEmailEditor } from '../../components/email-editor/LazyEmailEditor';
import { LoadFailedAlert } from '../../components/LoadFailedAlert';
import { PageHeader } from '../../components/PageHeader';
import { DeliveryTimePicker, type TDeliveryValue } from '../send-email/DeliveryTimePicker';
import { PreSendChecklist } from '../send-email/PreSendChecklist';
import { deliveryTimeOf } from '../send-email/send-email.form';
import { PREVIEW_CSP } from '../send-email/send-email.preview';
import { useCampaignPreSendCheck, useSendEmailContent } from '../send-email/send-email.queries';
import { campaignKeys, useCampaignMutation, useDraft } from './campaigns.queries';
import { RecipientsStep } from './RecipientsStep';
import {
  checkSequence,
  emptySequence,
  newDripKey,
  SequenceEditor,
  type TSequenceForm,
  useSequenceErrors,
} from './SequenceEditor';

const STEPS = [
  { key: 'start', label: 'Start', number: 1 },
  { key: 'recipients', label: 'Recipients', number: 2 },
  { key: 'compose', label: 'Compose', number: 3 },
  { key: 'preview', label: 'Preview', number: 4 },
  { key: 'options', label: 'Options', number: 5 },
  { key: 'finish', label: 'Finish', number: 6 },
] as const;
type TStepKey = (typeof STEPS)[number]['key'];

/** Step 1: title, sender, signature. */
const StartStep = ({
  draft,
  onSaved,
}: {
  draft: TCampaignDraft | undefined;
  onSaved: (id: number, key: string) => void;
}) => {
  const content = useSendEmailContent();
  const save = useCampaignMutation('saveStart');
  const [values, setValues] = useState({
    accountId: draft?.start.accountId ? String(draft.start.accountId) : '',
    title: draft?.start.title ?? '',
    senderName: draft?.start.senderName ?? '',
    alias: draft?.start.alias ?? '',
    signature: draft?.start.signature ?? '',
    signatureDocument: readDocument(draft?.start.signatureDocument),
  });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const accounts = content.data?.accounts ?? [];
  const accountId = values.accountId || (content.data?.chosenAccount ? String(content.data.chosenAccount) : '');
  const account = accounts.find((candidate) => String(candidate.id) === accountId);
  const nameOnly = account ? sendsAsSenderNameOnly(account.provider) : true;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(
      {
        body: {
          ...(draft ? { temporary: draft.temporaryKey } : {}),
          accountId: Number(accountId),
          title: values.title,
          senderName: values.senderName,
          alias: nameOnly ? '' : values.alias,
          signature: values.signature,
          signatureDocument: values.signatureDocument,
        },
      },
      {
        onSuccess: (answer) => onSaved(answer.id as number, answer.temporaryKey as string),
        onError: (error) => {
          const fields = fieldErrors(error);
          if (Object.keys(fields).length > 0) setErrors(fields);
          else showError(error);
        },
      },
    );
  };
  if (content.isPending) return <Loader aria-label="Loading your accounts" />;
  return (
    <form onSubmit={submit} noValidate aria-label="Start">
      <Paper withBorder p="md" radius="md">
        <Stack>
          <Select
            label="Sending account"
            required
            data={accounts.map((candidate) => ({ value: String(candidate.id), label: candidate.name }))}
            value={accountId || null}
            onChange={(value) => value && setValues({ ...values, accountId: value })}
            error={errors.accountId}
            allowDeselect={false}
          />
          <TextInput
            label="Campaign Title"
            required
            value={values.title}
            onChange={(event) => setValues({ ...values, title: event.currentTarget.value })}
            error={errors.title}
          />
          <TextInput
            label="Sender Name"
            required={nameOnly}
            value={values.senderName}
            onChange={(event) => setValues({ ...values, senderName: event.currentTarget.value })}
            error={errors.senderName}
          />
          {!nameOnly && account && (
            <Group align="flex-end" gap={4} wrap="nowrap">
              <TextInput
                label="From"
                required
                value={values.alias}
                onChange={(event) => setValues({ ...values, alias: event.currentTarget.value })}
                error={errors.alias}
                style={{ flex: 1 }}
              />
              <Text pb={8}>@</Text>
              <TextInput label="Domain" readOnly value={senderDomain(account.domain, false)} style={{ flex: 1 }} />
            </Group>
          )}
          {nameOnly && account && (
            <Text size="sm" c="dimmed">
              Sends from {account.fromAddress}.
            </Text>
          )}
          <LazyEmailEditor
            id="campaign-signature"
            label="Signature"
            isFragment
            value={{ html: values.signature, document: values.signatureDocument }}
            onChange={(content) =>
              setValues({ ...values, signature: content.html, signatureDocument: content.document })
            }
          />
          <Group justify="flex-end">
            <Button type="submit" loading={save.isPending}>
              Next
            </Button>
          </Group>
        </Stack>
      </Paper>
    </form>
  );
};

const toForm = (draft: TCampaignDraft): TSequenceForm =>
  draft.drips.length === 0
    ? emptySequence(draft.dailyPlan)
    : {
        drips: draft.drips.map((drip) => ({
          key: newDripKey(),
          id: drip.id,
          subject: drip.subject,
          body: drip.body,
          bodyDocument: readDocument(drip.bodyDocument),
          replyTo: drip.replyTo ?? '',
          globalReply: drip.globalReply ?? false,
          period: drip.period ?? 5,
          frequency: drip.frequency ?? 'day',
          followUp: drip.followUp
            ? {
                waitDays: drip.followUp.waitDays ?? 5,
                subject: drip.followUp.subject,
                body: drip.followUp.body,
                document: readDocument(drip.followUp.document),
              }
            : null,
          clickFollowUp: drip.clickFollowUp
            ? {
                waitDays: drip.clickFollowUp.waitDays ?? 1,
                link: drip.clickFollowUp.link ?? '',
                subject: drip.clickFollowUp.subject,
                body: drip.clickFollowUp.body,
                document: readDocument(drip.clickFollowUp.document),
              }
            : null,
        })),
        dailyPlan: draft.dailyPlan,
      };

/** Step 3: the sequence editor. */
const ComposeStep = ({ draft, onSaved }: { draft: TCampaignDraft; onSaved: () => void }) => {
  const save = useCampaignMutation('saveSequence');
  const [value, setValue] = useState(() => toForm(draft));
  const [errors, setErrors] = useSequenceErrors(value);
  const variables = useMemo(() => ['email', 'name', ...draft.recipients.variables], [draft.recipients.variables]);
  const next = () => {
    const checked = checkSequence(value);
    setErrors(checked.errors, value);
    if (!checked.ok) return;
    save.mutate(
      { body: { temporary: draft.temporaryKey, ...checked.body } },
      {
        onSuccess: onSaved,
        onError: (error) => {
          const fields = fieldErrors(error);
          if (Object.keys(fields).length > 0) setErrors(fields, value);
          else showError(error);
        },
      },
    );
  };
  return (
    <Stack>
      <SequenceEditor value={value} errors={errors} variables={variables} onChange={setValue} />
      {Object.keys(errors).length > 0 && (
        <Alert color="red" role="alert">
          {Object.values(errors)[0]}
        </Alert>
      )}
      <Group justify="flex-end">
        <Button onClick={next} loading={save.isPending}>
          Next
        </Button>
      </Group>
    </Stack>
  );
};

const framed = (html: string) => `<meta http-equiv="Content-Security-Policy" content="${PREVIEW_CSP}">${html}`;

/** Step 4: each email as one recipient gets it (up to 50 recipients), with the waits between. */
const PreviewStep = ({ draft, onSaved }: { draft: TCampaignDraft; onSaved: () => void }) => {
  const save = useCampaignMutation('savePreview');
  const [index, setIndex] = useState(0);
  const recipients = useQuery({
    queryKey: [...campaignKeys.draft(draft.temporaryKey), 'preview'],
    queryFn: ({ signal }) =>
      callRoute(campaignsApi.previewRecipients, { body: { temporary: draft.temporaryKey }, signal }),
  });
  const list = recipients.data?.recipients ?? [];
  const recipient = list[index];
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2} fz="md">
          {recipient ? `${recipient.name || recipient.email} <${recipient.email}>` : 'Preview'}
        </Title>
        <Group gap="xs">
          <ActionIcon
            variant="default"
            aria-label="Previous recipient"
            disabled={index === 0}
            onClick={() => setIndex(index - 1)}
          >
            <IconChevronLeft size={16} aria-hidden />
          </ActionIcon>
          <Text size="sm" data-testid="preview-index">
            {list.length === 0 ? '0 / 0' : `${index + 1} / ${list.length}`}
          </Text>
          <ActionIcon
            variant="default"
            aria-label="Next recipient"
            disabled={index >= list.length - 1}
            onClick={() => setIndex(index + 1)}
          >
            <IconChevronRight size={16} aria-hidden />
          </ActionIcon>
        </Group>
      </Group>
      {recipient &&
        draft.drips.map((drip, position) => {
          const merge = { email: recipient.email, name: recipient.name, fields: recipient.variables };
          return (
            <Stack key={drip.id} gap={4}>
              {position > 0 && (
                <Text size="sm" c="dimmed" ta="center">
                  — wait {waitText(drip.period ?? 5, drip.frequency ?? 'day')} —
                </Text>
              )}
              <Paper withBorder p="sm" radius="md">
                <Text size="sm" fw={600}>
                  #Email - {position + 1}: {renderMergeFields(drip.subject, merge, false)}
                </Text>
                <iframe
                  title={`Email ${position + 1} for ${recipient.email}`}
                  sandbox=""
                  srcDoc={framed(withSignature(renderMergeFields(drip.body, merge, true), draft.start.signature))}
                  style={{ width: '100%', height: 180, border: 0, background: 'white' }}
                />
              </Paper>
            </Stack>
          );
        })}
      <Group justify="flex-end">
        <Button
          onClick={() =>
            save.mutate({ body: { temporary: draft.temporaryKey } }, { onSuccess: onSaved, onError: showError })
          }
        >
          Next
        </Button>
      </Group>
    </Stack>
  );
};

/** Step 5: tracking, the first mail's time, the law and terms. */
const OptionsStep = ({ draft, onSaved }: { draft: TCampaignDraft; onSaved: () => void }) => {
  const save = useCampaignMutation('saveOptions');
  const timeZone = useTimeZone();
  const [options, setOptions] = useState(() => {
    // The first mail's time on the user's clock, as every other time (issue 29), not the browser's.
    const parts = draft.options.scheduleTime ? deliveryParts(new Date(draft.options.scheduleTime), timeZone) : null;
    return {
      trackOpens: draft.options.trackOpens,
      scheduled: draft.options.scheduled,
      schedule: { deliveryDate: parts?.date ?? null, deliverySlot: parts?.slot ?? null } as TDeliveryValue,
      acceptLaw: draft.options.acceptLaw,
    };
  });
  const scheduleTime = parseDeliveryTime(deliveryTimeOf(options.schedule), timeZone);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(
      {
        body: {
          temporary: draft.temporaryKey,
          options: {
            trackOpens: options.trackOpens,
            scheduled: options.scheduled,
            scheduleTime: options.scheduled && scheduleTime ? scheduleTime.toISOString() : null,
            acceptLaw: options.acceptLaw,
          },
        },
      },
      {
        onSuccess: onSaved,
        onError: (error) => {
          const fields = Object.fromEntries(
            Object.entries(fieldErrors(error)).map(([field, message]) => [field.replace(/^options\./, ''), message]),
          );
          if (Object.keys(fields).length > 0) setErrors(fields);
          else showError(error);
        },
      },
    );
  };
  return (
    <form onSubmit={submit} noValidate aria-label="Options">
      <Paper withBorder p="md" radius="md">
        <Stack>
          <Title order={2} fz="md">
            Choose how your campaign will be sent
          </Title>
          <Checkbox
            label="Track opens"
            checked={options.trackOpens}
            onChange={(event) => setOptions({ ...options, trackOpens: event.currentTarget.checked })}
          />
          <Checkbox
            label="Schedule the first campaign mail"
            checked={options.scheduled}
            onChange={(event) => setOptions({ ...options, scheduled: event.currentTarget.checked })}
          />
          {options.scheduled && (
            <DeliveryTimePicker
              id="campaign-schedule"
              value={options.schedule}
              onChange={(schedule) => setOptions((current) => ({ ...current, schedule }))}
              timeZone={timeZone}
              allowsScheduling
              isRequired
              labels={{ date: 'First mail on', time: 'First mail at' }}
              error={errors.scheduleTime}
            />
          )}
          <Checkbox
            label="I accept the law and terms: my recipients agreed to hear from me, and every email lets them unsubscribe."
            checked={options.acceptLaw}
            onChange={(event) => setOptions({ ...options, acceptLaw: event.currentTarget.checked })}
            error={errors.acceptLaw}
          />
          <Group justify="flex-end">
            <Button type="submit" loading={save.isPending}>
              Next
            </Button>
          </Group>
        </Stack>
      </Paper>
    </form>
  );
};

/** Step 6: what will go, and the button that saves and starts it. */
const FinishStep = ({ draft }: { draft: TCampaignDraft }) => {
  const formatDateTime = useFormatDateTime();
  const navigate = useNavigate();
  const finish = useCampaignMutation('finish', (answer) => navigate(`/campaigns/detail/${answer.id as number}`));
  const preSend = useCampaignPreSendCheck(draft.temporaryKey);
  return (
    <Paper withBorder p="md" radius="md">
      <Stack>
        <Title order={2} fz="md">
          {draft.start.title}
        </Title>
        <Text size="sm">From {draft.start.from}</Text>
        <Text size="sm">
          {draft.recipients.count.toLocaleString('en-US')} recipients, {draft.drips.length} email
          {draft.drips.length === 1 ? '' : 's'};{' '}
          {draft.options.scheduled && draft.options.scheduleTime
            ? `the first mail goes on ${formatDateTime(draft.options.scheduleTime)}.`
            : 'the first mails go as soon as the campaign is saved, inside its sending windows.'}
        </Text>
        {/* Before it starts (issue 31 §1): the same checklist as Send Email's; nothing is blocked. */}
        <PreSendChecklist
          check={preSend.data}
          isPending={preSend.isPending}
          isError={preSend.isError}
          onRetry={() => void preSend.refetch()}
          heading="Before it starts"
          question="Start it anyway?"
        />
        <Group justify="flex-end">
          <Button
            loading={finish.isPending}
            color={preSend.data?.hasFailures ? 'red' : undefined}
            onClick={() => finish.mutate({ body: { temporary: draft.temporaryKey } }, { onError: showError })}
          >
            Save Campaign
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
};

/**
 * The drip wizard (spec §2): six tabs, each unlocked once the step before it is saved, at
 * `#/drip/<step>`; an unsaved campaign (`/campaigns/continue/{id}`) resumes at its furthest step.
 */
export const CampaignWizardPage = () => {
  const { id } = useParams();
  const location = useLocation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const continued = useQuery({
    queryKey: ['campaigns', 'continue', id ?? ''],
    queryFn: ({ signal }) => callRoute(campaignsApi.continue, { params: { id: Number(id) }, signal }),
    enabled: id !== undefined,
    meta: { reportErrors: false },
  });
  const key = continued.data?.temporaryKey ?? null;
  const draft = useDraft(key);
  const furthest = draft.data?.step ?? 1;
  const fromHash = STEPS.find((step) => location.hash === `#/drip/${step.key}`);
  const current = fromHash && fromHash.number <= furthest ? fromHash : (STEPS[furthest - 1] ?? STEPS[0]);
  const go = (step: TStepKey) => navigate({ hash: `/drip/${step}` });

  // A resumed campaign opens at its furthest step, once, when it first loads (later, a step
  // just saved moves the address on before the refreshed draft arrives: no bounce back).
  const hasOpened = useRef(false);
  useEffect(() => {
    if (!draft.data || hasOpened.current) return;
    hasOpened.current = true;
    if (!fromHash || fromHash.number > furthest) navigate({ hash: `/drip/${current.key}` }, { replace: true });
  }, [draft.data, fromHash, furthest, current.key, navigate]);

  const savedThen = (step: TStepKey) => async () => {
    await queryClient.invalidateQueries({ queryKey: campaignKeys.draft(key ?? '') });
    go(step);
  };

  const failed = continued.error ?? draft.error;
  const isLoading = (id !== undefined && continued.isPending) || (key !== null && draft.isPending);
  return (
    <>
      <PageHeader
        title="New Drip Campaign"
        description="A sequence of emails, each sent after the one before it, inside your sending windows."
      />
      {failed && (
        <LoadFailedAlert
          title={
            failed instanceof ApiError && failed.status === 404
              ? 'This unsaved campaign does not exist any more.'
              : 'The campaign could not be loaded'
          }
          onRetry={() => void (continued.error ? continued.refetch() : draft.refetch())}
        />
      )}
      {isLoading ? (
        <Center py="xl">
          <Loader aria-label="Loading the campaign" />
        </Center>
      ) : (
        !failed && (
          <Tabs value={current.key} onChange={(value) => value && go(value as TStepKey)} keepMounted={false}>
            <Tabs.List mb="md">
              {STEPS.map((step) => (
                <Tabs.Tab key={step.key} value={step.key} disabled={step.number > furthest}>
                  {step.number}. {step.label}
                </Tabs.Tab>
              ))}
            </Tabs.List>
            <Tabs.Panel value="start">
              <StartStep
                key={draft.data?.temporaryKey ?? 'new'}
                draft={draft.data}
                onSaved={(campaignId) => {
                  void queryClient.invalidateQueries({ queryKey: campaignKeys.all });
                  navigate(`/campaigns/continue/${campaignId}#/drip/recipients`);
                }}
              />
            </Tabs.Panel>
            {draft.data && (
              <>
                <Tabs.Panel value="recipients">
                  <RecipientsStep
                    temporary={draft.data.temporaryKey}
                    count={draft.data.recipients.count}
                    onSaved={() => void savedThen('compose')()}
                  />
                </Tabs.Panel>
                <Tabs.Panel value="compose">
                  <ComposeStep draft={draft.data} onSaved={() => void savedThen('preview')()} />
                </Tabs.Panel>
                <Tabs.Panel value="preview">
                  <PreviewStep draft={draft.data} onSaved={() => void savedThen('options')()} />
                </Tabs.Panel>
                <Tabs.Panel value="options">
                  <OptionsStep draft={draft.data} onSaved={() => void savedThen('finish')()} />
                </Tabs.Panel>
                <Tabs.Panel value="finish">
                  <FinishStep draft={draft.data} />
                </Tabs.Panel>
              </>
            )}
          </Tabs>
        )
      )}
    </>
  );
};
