import {
  ActionIcon,
  Anchor,
  Button,
  Checkbox,
  Grid,
  Group,
  NumberInput,
  Paper,
  Select,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import {
  CAMPAIGN_DEFAULTS,
  FREQUENCIES,
  type TDailyPlan,
  type TDayPlan,
  type TEmailDocument,
  type TFrequency,
  timeZoneLabel,
  WEEKDAY_TITLES,
  ZSequence,
} from '@sendwell/contracts';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { memo, useCallback, useMemo, useState } from 'react';
import { Link } from 'react-router';
import { useTimeZone } from '../../app/dates';
import { LazyEmailEditor } from '../../components/email-editor/LazyEmailEditor';

/** One email of the sequence as the editor holds it (`key` is the editor's own, `id` the server's). */
export type TDripForm = {
  key: string;
  id?: number | undefined;
  subject: string;
  body: string;
  /** The body's builder document (issue 46); null for HTML written by hand. */
  bodyDocument: TEmailDocument | null;
  replyTo: string;
  globalReply: boolean;
  period: number;
  frequency: TFrequency;
  followUp: { waitDays: number; subject: string; body: string; document: TEmailDocument | null } | null;
  clickFollowUp: {
    waitDays: number;
    link: string;
    subject: string;
    body: string;
    document: TEmailDocument | null;
  } | null;
};

export type TSequenceForm = { drips: TDripForm[]; dailyPlan: TDailyPlan };
export type TSequenceErrors = Record<string, string>;

let keys = 0;
export const newDripKey = () => `drip-${++keys}`;

export const emptySequence = (dailyPlan: TDailyPlan): TSequenceForm => ({
  drips: [
    {
      key: newDripKey(),
      subject: '',
      body: '',
      bodyDocument: null,
      replyTo: '',
      globalReply: false,
      period: CAMPAIGN_DEFAULTS.period,
      frequency: 'day',
      followUp: null,
      clickFollowUp: null,
    },
  ],
  dailyPlan,
});

/** The sequence as the server takes it, and the first message of each field that fails. */
export const checkSequence = (form: TSequenceForm) => {
  const body = {
    drips: form.drips.map(({ key: _key, id, ...drip }) => ({ ...drip, ...(id ? { id } : {}) })),
    dailyPlan: form.dailyPlan,
  };
  const parsed = ZSequence.safeParse(body);
  const errors: TSequenceErrors = {};
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const path = issue.path.join('.');
      errors[path] ??= issue.message;
    }
  }
  return { body, errors, ok: parsed.success };
};

/**
 * The errors of a check that still hold: an error stays beside its field until that field
 * changes (a subject typed after "Subject field is required!" takes the message away), and
 * follows its email when emails before it are added or deleted. `against` is the sequence as
 * it was checked.
 */
export const liveSequenceErrors = (
  errors: TSequenceErrors,
  against: TSequenceForm,
  now: TSequenceForm,
): TSequenceErrors => {
  const live: TSequenceErrors = {};
  for (const [path, message] of Object.entries(errors)) {
    const [root, position, field] = path.split('.');
    if (root === 'dailyPlan') {
      if (JSON.stringify(against.dailyPlan) === JSON.stringify(now.dailyPlan)) live[path] = message;
      continue;
    }
    if (root !== 'drips' || position === undefined || field === undefined) {
      // About the sequence as a whole: it holds while no email was added or deleted.
      if (against.drips.length === now.drips.length) live[path] = message;
      continue;
    }
    const checked = against.drips[Number(position)];
    const index = checked ? now.drips.findIndex((drip) => drip.key === checked.key) : -1;
    if (!checked || index === -1) continue;
    const key = field as keyof TDripForm;
    if (JSON.stringify(checked[key]) !== JSON.stringify(now.drips[index]![key])) continue;
    live[['drips', index, ...path.split('.').slice(2)].join('.')] = message;
  }
  return live;
};

/** A sequence's check results as the form shows them: set by a check, cleared field by field as they are fixed. */
export const useSequenceErrors = (value: TSequenceForm | null) => {
  const [checked, setChecked] = useState<{ errors: TSequenceErrors; against: TSequenceForm } | null>(null);
  const errors = useMemo(
    () => (checked && value ? liveSequenceErrors(checked.errors, checked.against, value) : {}),
    [checked, value],
  );
  const setErrors = useCallback(
    (next: TSequenceErrors, against: TSequenceForm) => setChecked({ errors: next, against }),
    [],
  );
  return [errors, setErrors] as const;
};

const HOURS = Array.from({ length: 12 }, (_, index) => String(index + 1));
const MINUTES = ['00', '30'];

const TimeFields = ({
  day,
  which,
  disabled,
  onChange,
}: {
  day: TDayPlan;
  which: 'start' | 'end';
  disabled: boolean;
  onChange: (patch: Partial<TDayPlan>) => void;
}) => {
  const hour = which === 'start' ? day.startHour : day.endHour;
  const minute = which === 'start' ? day.startMin : day.endMin;
  const type = which === 'start' ? day.startType : day.endType;
  const label = `${WEEKDAY_TITLES[day.key]} ${which === 'start' ? 'start' : 'end'}`;
  const set = (patch: { hour?: number; minute?: number; type?: 'AM' | 'PM' }) =>
    onChange(
      which === 'start'
        ? {
            ...(patch.hour !== undefined ? { startHour: patch.hour } : {}),
            ...(patch.minute !== undefined ? { startMin: patch.minute } : {}),
            ...(patch.type ? { startType: patch.type } : {}),
          }
        : {
            ...(patch.hour !== undefined ? { endHour: patch.hour } : {}),
            ...(patch.minute !== undefined ? { endMin: patch.minute } : {}),
            ...(patch.type ? { endType: patch.type } : {}),
          },
    );
  return (
    <Group gap={2} wrap="nowrap">
      <Select
        aria-label={`${label} hour`}
        size="xs"
        w={58}
        data={HOURS}
        value={String(hour === 0 ? 12 : hour)}
        onChange={(value) => value && set({ hour: Number(value) })}
        disabled={disabled}
        allowDeselect={false}
      />
      <Select
        aria-label={`${label} minute`}
        size="xs"
        w={58}
        data={
          MINUTES.includes(String(minute).padStart(2, '0')) ? MINUTES : [...MINUTES, String(minute).padStart(2, '0')]
        }
        value={String(minute).padStart(2, '0')}
        onChange={(value) => value && set({ minute: Number(value) })}
        disabled={disabled}
        allowDeselect={false}
      />
      <Select
        aria-label={`${label} AM or PM`}
        size="xs"
        w={64}
        data={['AM', 'PM']}
        value={type}
        onChange={(value) => value && set({ type: value as 'AM' | 'PM' })}
        disabled={disabled}
        allowDeselect={false}
      />
    </Group>
  );
};

/** The weekday panel (spec: at least one day; the last checked day is locked). */
const DaysPanel = memo(function DaysPanel({
  plan,
  error,
  onChange,
}: {
  plan: TDailyPlan;
  error?: string | undefined;
  onChange: (plan: TDailyPlan) => void;
}) {
  const timeZone = useTimeZone();
  const checked = plan.filter((day) => day.checked).length;
  const patch = (key: TDayPlan['key'], change: Partial<TDayPlan>) =>
    onChange(plan.map((day) => (day.key === key ? { ...day, ...change } : day)));
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="sending-days">
      <Title order={3} fz="md" id="sending-days" mb={4}>
        Sending days and times
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        Emails go out only inside these windows, in your time zone ({timeZoneLabel(timeZone)};{' '}
        <Anchor component={Link} to="/settings/profile" size="sm">
          change it
        </Anchor>
        ). An end before the start runs past midnight.
      </Text>
      {/*
        One line per day where the panel is wide; where it is narrow (beside the emails on a
        desktop, or a phone) the times wrap under the day instead of widening the page.
      */}
      <Stack gap={6} role="group" aria-label="Sending days and times">
        {plan.map((day) => {
          const isLastChecked = day.checked && checked === 1;
          return (
            <Group key={day.key} gap="xs" wrap="wrap" style={{ rowGap: 4 }} align="center">
              <Checkbox
                w={110}
                label={WEEKDAY_TITLES[day.key]}
                checked={day.checked}
                disabled={isLastChecked}
                onChange={(event) => patch(day.key, { checked: event.currentTarget.checked })}
              />
              <Group gap="xs" wrap="wrap" style={{ rowGap: 4 }}>
                <Group gap={6} wrap="nowrap">
                  <Text size="xs" c="dimmed" w={28} aria-hidden>
                    From
                  </Text>
                  <TimeFields
                    day={day}
                    which="start"
                    disabled={!day.checked}
                    onChange={(change) => patch(day.key, change)}
                  />
                </Group>
                <Group gap={6} wrap="nowrap">
                  <Text size="xs" c="dimmed" w={28} aria-hidden>
                    to
                  </Text>
                  <TimeFields
                    day={day}
                    which="end"
                    disabled={!day.checked}
                    onChange={(change) => patch(day.key, change)}
                  />
                </Group>
              </Group>
            </Group>
          );
        })}
      </Stack>
      {error && (
        <Text size="sm" c="red" role="alert" mt="xs">
          {error}
        </Text>
      )}
    </Paper>
  );
});

/**
 * One step's card. Memoised, with callbacks that take the step's key: a keystroke in one
 * body re-renders that card alone, not every card and the 42 time fields of the days panel
 * (that made each keystroke cost ~120 ms in Chromium on a slow machine).
 */
const DripCard = memo(function DripCard({
  drip,
  index,
  errors,
  variables,
  onPatch,
  onDelete,
}: {
  drip: TDripForm;
  index: number;
  errors: TSequenceErrors;
  variables: string[];
  onPatch: (key: string, patch: Partial<TDripForm>) => void;
  onDelete: (key: string) => void;
}) {
  const onChange = (patch: Partial<TDripForm>) => onPatch(drip.key, patch);
  const error = (field: string) => errors[`drips.${index}.${field}`];
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby={`${drip.key}-title`}>
      <Group justify="space-between" mb="sm">
        <Title order={3} fz="md" id={`${drip.key}-title`}>
          #Email - {index + 1}
        </Title>
        {index > 0 && (
          <ActionIcon
            variant="subtle"
            color="red"
            onClick={() => onDelete(drip.key)}
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
              value={drip.period}
              onChange={(value) => onChange({ period: Number(value) || 0 })}
              error={error('period')}
            />
            <Select
              label="Frequency"
              w={140}
              data={FREQUENCIES.map((frequency) => ({ value: frequency, label: `${frequency}s` }))}
              value={drip.frequency}
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
          value={drip.subject}
          onChange={(event) => onChange({ subject: event.currentTarget.value })}
          error={error('subject')}
        />
        <TextInput
          label="Reply To"
          type="email"
          value={drip.replyTo}
          onChange={(event) => onChange({ replyTo: event.currentTarget.value })}
          error={error('replyTo')}
        />
        {index === 0 && (
          <Checkbox
            label="Use for all emails?"
            checked={drip.globalReply}
            onChange={(event) => onChange({ globalReply: event.currentTarget.checked })}
          />
        )}
        <LazyEmailEditor
          id={`${drip.key}-body`}
          label="Message Body"
          subject={drip.subject}
          start="letter"
          personaliseLabel="Insert Text Replacement"
          variables={variables}
          value={{ html: drip.body, document: drip.bodyDocument }}
          onChange={(content) => onChange({ body: content.html, bodyDocument: content.document })}
          error={error('body')}
        />
        <Checkbox
          label="Follow up if this email is not opened"
          checked={drip.followUp !== null}
          onChange={(event) =>
            onChange({
              followUp: event.currentTarget.checked
                ? { waitDays: 5, subject: `Re: ${drip.subject}`, body: '', document: null }
                : null,
            })
          }
        />
        {drip.followUp && (
          <Paper withBorder p="sm" radius="sm" bg="gray.0">
            <Stack gap="xs">
              <NumberInput
                label="Days without an open"
                min={1}
                max={365}
                w={200}
                value={drip.followUp.waitDays}
                onChange={(value) => onChange({ followUp: { ...drip.followUp!, waitDays: Number(value) || 1 } })}
                error={error('followUp.waitDays')}
              />
              <TextInput
                label="Follow-up subject"
                required
                value={drip.followUp.subject}
                onChange={(event) => onChange({ followUp: { ...drip.followUp!, subject: event.currentTarget.value } })}
                error={error('followUp.subject')}
              />
              <LazyEmailEditor
                id={`${drip.key}-follow-up-body`}
                label="Follow-up body"
                subject={drip.followUp.subject}
                start="letter"
                personaliseLabel="Insert Text Replacement"
                variables={variables}
                value={{ html: drip.followUp.body, document: drip.followUp.document }}
                onChange={(content) =>
                  onChange({ followUp: { ...drip.followUp!, body: content.html, document: content.document } })
                }
                error={error('followUp.body')}
              />
            </Stack>
          </Paper>
        )}
        <Checkbox
          label="Follow up when the recipient clicks a link"
          checked={drip.clickFollowUp !== null}
          onChange={(event) =>
            onChange({
              clickFollowUp: event.currentTarget.checked
                ? { waitDays: 1, link: '', subject: `Re: ${drip.subject}`, body: '', document: null }
                : null,
            })
          }
        />
        {drip.clickFollowUp && (
          <Paper withBorder p="sm" radius="sm" bg="gray.0">
            <Stack gap="xs">
              <Group grow align="flex-start">
                <NumberInput
                  label="Days after the click"
                  min={0}
                  max={365}
                  value={drip.clickFollowUp.waitDays}
                  onChange={(value) =>
                    onChange({ clickFollowUp: { ...drip.clickFollowUp!, waitDays: Number(value) || 0 } })
                  }
                  error={error('clickFollowUp.waitDays')}
                />
                <TextInput
                  label="Link (empty: any link)"
                  placeholder="https://…"
                  value={drip.clickFollowUp.link}
                  onChange={(event) =>
                    onChange({ clickFollowUp: { ...drip.clickFollowUp!, link: event.currentTarget.value } })
                  }
                  error={error('clickFollowUp.link')}
                />
              </Group>
              <TextInput
                label="Click follow-up subject"
                required
                value={drip.clickFollowUp.subject}
                onChange={(event) =>
                  onChange({ clickFollowUp: { ...drip.clickFollowUp!, subject: event.currentTarget.value } })
                }
                error={error('clickFollowUp.subject')}
              />
              <LazyEmailEditor
                id={`${drip.key}-click-follow-up-body`}
                label="Click follow-up body"
                subject={drip.clickFollowUp.subject}
                start="letter"
                personaliseLabel="Insert Text Replacement"
                variables={variables}
                value={{ html: drip.clickFollowUp.body, document: drip.clickFollowUp.document }}
                onChange={(content) =>
                  onChange({
                    clickFollowUp: { ...drip.clickFollowUp!, body: content.html, document: content.document },
                  })
                }
                error={error('clickFollowUp.body')}
              />
            </Stack>
          </Paper>
        )}
      </Stack>
    </Paper>
  );
});

/**
 * The sequence editor (spec §2): '#Email - N' cards, ADD STEP, and the weekday windows
 * beside them. `onChange` takes an update of the previous value (a state setter will do),
 * so the callbacks handed to the cards stay the same from one keystroke to the next.
 */
export const SequenceEditor = ({
  value,
  errors,
  variables,
  onChange,
}: {
  value: TSequenceForm;
  errors: TSequenceErrors;
  variables: string[];
  onChange: (update: (previous: TSequenceForm) => TSequenceForm) => void;
}) => {
  const setDrip = useCallback(
    (key: string, patch: Partial<TDripForm>) =>
      onChange((previous) => ({
        ...previous,
        drips: previous.drips.map((drip) => (drip.key === key ? { ...drip, ...patch } : drip)),
      })),
    [onChange],
  );
  const deleteDrip = useCallback(
    (key: string) =>
      onChange((previous) => ({ ...previous, drips: previous.drips.filter((other) => other.key !== key) })),
    [onChange],
  );
  const setDailyPlan = useCallback(
    (dailyPlan: TDailyPlan) => onChange((previous) => ({ ...previous, dailyPlan })),
    [onChange],
  );
  const addStep = () => {
    const key = newDripKey();
    onChange((previous) => {
      const first = previous.drips[0]!;
      return {
        ...previous,
        drips: [
          ...previous.drips,
          {
            key,
            subject: `Re: ${first.subject}`,
            body: '',
            bodyDocument: null,
            replyTo: first.globalReply ? first.replyTo : '',
            globalReply: false,
            period: CAMPAIGN_DEFAULTS.period,
            frequency: CAMPAIGN_DEFAULTS.frequency,
            followUp: null,
            clickFollowUp: null,
          },
        ],
      };
    });
  };
  return (
    <Grid gap="lg">
      <Grid.Col span={{ base: 12, lg: 8 }}>
        <Stack gap="md">
          {value.drips.map((drip, index) => (
            <DripCard
              key={drip.key}
              drip={drip}
              index={index}
              errors={errors}
              variables={variables}
              onPatch={setDrip}
              onDelete={deleteDrip}
            />
          ))}
          <Group>
            <Button variant="light" leftSection={<IconPlus size={16} aria-hidden />} onClick={addStep}>
              ADD STEP
            </Button>
          </Group>
        </Stack>
      </Grid.Col>
      <Grid.Col span={{ base: 12, lg: 4 }}>
        <DaysPanel plan={value.dailyPlan} error={errors.dailyPlan} onChange={setDailyPlan} />
      </Grid.Col>
    </Grid>
  );
};
