import { ActionIcon, Checkbox, Group, NumberInput, Paper, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { FREQUENCIES, type TFrequency } from '@sendwell/contracts';
import { IconTrash } from '@tabler/icons-react';
import { memo } from 'react';
import { LazyEmailEditor } from '../../components/email-editor/LazyEmailEditor';
import type { TConditionalStepForm, TSequenceErrors, TStepForm } from './sequence-form';

/** A step's body in the email editor (issue 46): opens as a letter, merge fields under 'Insert Text Replacement'. */
const BodyEditor = ({
  id,
  label,
  subject,
  variables,
  html,
  document,
  error,
  onChange,
}: {
  id: string;
  label: string;
  subject: string;
  variables: string[];
  html: string;
  document: TConditionalStepForm['document'];
  error: string | undefined;
  onChange: (html: string, document: TConditionalStepForm['document']) => void;
}) => (
  <LazyEmailEditor
    id={id}
    label={label}
    subject={subject}
    start="letter"
    personaliseLabel="Insert Text Replacement"
    variables={variables}
    value={{ html, document }}
    onChange={(content) => onChange(content.html, content.document)}
    error={error}
  />
);

/** The step's field holding each conditional step (the spec's follow-up and click follow-up). */
type TConditionalKind = 'followUp' | 'clickFollowUp';

/** What tells the two conditional steps apart (spec §3): when each goes, and its wait's bounds. */
const CONDITIONAL_STEPS = {
  followUp: {
    toggle: 'Send another email if this one is not opened',
    wait: 'Days without an open',
    subject: 'Subject if not opened',
    body: 'Message Body if not opened',
    id: 'unopened',
    min: 1,
    fresh: (subject: string) => ({ waitDays: 5, subject: `Re: ${subject}`, body: '', document: null }),
  },
  clickFollowUp: {
    toggle: 'Send another email when the recipient clicks a link',
    wait: 'Days after the click',
    subject: 'Subject after a click',
    body: 'Message Body after a click',
    id: 'clicked',
    min: 0,
    fresh: (subject: string) => ({ waitDays: 1, link: '', subject: `Re: ${subject}`, body: '', document: null }),
  },
} as const;

/** A step's unopened or click step: the checkbox that adds it, then its wait, (link,) subject and body. */
const ConditionalStepFields = ({
  kind,
  step,
  variables,
  error,
  onChange,
}: {
  kind: TConditionalKind;
  step: TStepForm;
  variables: string[];
  error: (field: string) => string | undefined;
  onChange: (patch: Partial<TStepForm>) => void;
}) => {
  const words = CONDITIONAL_STEPS[kind];
  const value = step[kind];
  const set = (patch: Partial<NonNullable<TStepForm['clickFollowUp']>>) =>
    onChange({ [kind]: { ...value!, ...patch } } as Partial<TStepForm>);
  const wait = value && (
    <NumberInput
      label={words.wait}
      min={words.min}
      max={365}
      w={kind === 'followUp' ? 200 : undefined}
      value={value.waitDays}
      onChange={(changed) => set({ waitDays: Number(changed) || words.min })}
      error={error(`${kind}.waitDays`)}
    />
  );
  return (
    <>
      <Checkbox
        label={words.toggle}
        checked={value !== null}
        onChange={(event) =>
          onChange({ [kind]: event.currentTarget.checked ? words.fresh(step.subject) : null } as Partial<TStepForm>)
        }
      />
      {value && (
        <Paper withBorder p="sm" radius="sm" bg="gray.0">
          <Stack gap="xs">
            {kind === 'clickFollowUp' && step.clickFollowUp ? (
              <Group grow align="flex-start">
                {wait}
                <TextInput
                  label="Link (empty: any link)"
                  placeholder="https://…"
                  value={step.clickFollowUp.link}
                  onChange={(event) => set({ link: event.currentTarget.value })}
                  error={error('clickFollowUp.link')}
                />
              </Group>
            ) : (
              wait
            )}
            <TextInput
              label={words.subject}
              required
              value={value.subject}
              onChange={(event) => set({ subject: event.currentTarget.value })}
              error={error(`${kind}.subject`)}
            />
            <BodyEditor
              id={`${step.key}-${words.id}-body`}
              label={words.body}
              subject={value.subject}
              variables={variables}
              html={value.body}
              document={value.document}
              error={error(`${kind}.body`)}
              onChange={(body, document) => set({ body, document })}
            />
          </Stack>
        </Paper>
      )}
    </>
  );
};

/**
 * One step's card. Memoised, with callbacks that take the step's key: a keystroke in one
 * body re-renders that card alone, not every card and the 42 time fields of the days panel
 * (that made each keystroke cost ~120 ms in Chromium on a slow machine).
 */
export const StepCard = memo(function StepCard({
  step,
  index,
  errors,
  variables,
  onPatch,
  onDelete,
}: {
  step: TStepForm;
  index: number;
  errors: TSequenceErrors;
  variables: string[];
  onPatch: (key: string, patch: Partial<TStepForm>) => void;
  onDelete: (key: string) => void;
}) {
  const onChange = (patch: Partial<TStepForm>) => onPatch(step.key, patch);
  // Error paths are the request's, whose list of steps is the spec's `drips`.
  const error = (field: string) => errors[`drips.${index}.${field}`];
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby={`${step.key}-title`}>
      <Group justify="space-between" mb="sm">
        <Title order={3} fz="md" id={`${step.key}-title`}>
          #Email - {index + 1}
        </Title>
        {index > 0 && (
          <ActionIcon
            variant="subtle"
            color="red"
            onClick={() => onDelete(step.key)}
            aria-label={`Delete email ${index + 1}`}
          >
            <IconTrash size={16} aria-hidden />
          </ActionIcon>
        )}
      </Group>
      <Stack gap="sm">
        {index > 0 && (
          <Group align="flex-end" gap="sm">
            <NumberInput
              label="Wait"
              min={0}
              max={1000}
              w={100}
              value={step.period}
              onChange={(value) => onChange({ period: Number(value) || 0 })}
              error={error('period')}
            />
            <Select
              label="Frequency"
              w={140}
              data={FREQUENCIES.map((frequency) => ({ value: frequency, label: `${frequency}s` }))}
              value={step.frequency}
              onChange={(value) => value && onChange({ frequency: value as TFrequency })}
              allowDeselect={false}
            />
            <Text size="sm" c="dimmed" pb={8}>
              after the previous email
            </Text>
          </Group>
        )}
        <TextInput
          label="Subject"
          required
          value={step.subject}
          onChange={(event) => onChange({ subject: event.currentTarget.value })}
          error={error('subject')}
        />
        <TextInput
          label="Reply To"
          type="email"
          value={step.replyTo}
          onChange={(event) => onChange({ replyTo: event.currentTarget.value })}
          error={error('replyTo')}
        />
        {index === 0 && (
          <Checkbox
            label="Use for all emails?"
            checked={step.globalReply}
            onChange={(event) => onChange({ globalReply: event.currentTarget.checked })}
          />
        )}
        <BodyEditor
          id={`${step.key}-body`}
          label="Message Body"
          subject={step.subject}
          variables={variables}
          html={step.body}
          document={step.bodyDocument}
          error={error('body')}
          onChange={(body, bodyDocument) => onChange({ body, bodyDocument })}
        />
        <ConditionalStepFields kind="followUp" step={step} variables={variables} error={error} onChange={onChange} />
        <ConditionalStepFields
          kind="clickFollowUp"
          step={step}
          variables={variables}
          error={error}
          onChange={onChange}
        />
      </Stack>
    </Paper>
  );
});
