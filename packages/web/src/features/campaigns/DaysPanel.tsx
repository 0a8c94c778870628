import { Anchor, Checkbox, Group, Paper, Select, Stack, Text, Title } from '@mantine/core';
import { type TDailyPlan, type TDayPlan, timeZoneLabel, WEEKDAY_TITLES } from '@sendwell/contracts';
import { memo } from 'react';
import { Link } from 'react-router';
import { useTimeZone } from '../../app/dates';

const HOURS = Array.from({ length: 12 }, (_, index) => String(index + 1));
const MINUTES = ['00', '30'];

/** The fields of a day's start or end time in the spec's dailyPlan. */
const TIME_KEYS = {
  start: { hour: 'startHour', minute: 'startMin', type: 'startType' },
  end: { hour: 'endHour', minute: 'endMin', type: 'endType' },
} as const;

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
  const keys = TIME_KEYS[which];
  const hour = day[keys.hour];
  const minute = String(day[keys.minute]).padStart(2, '0');
  const label = `${WEEKDAY_TITLES[day.key]} ${which}`;
  const fields = [
    { name: 'hour', data: HOURS, value: String(hour === 0 ? 12 : hour), w: 58, read: Number, key: keys.hour },
    {
      name: 'minute',
      data: MINUTES.includes(minute) ? MINUTES : [...MINUTES, minute],
      value: minute,
      w: 58,
      read: Number,
      key: keys.minute,
    },
    { name: 'AM or PM', data: ['AM', 'PM'], value: day[keys.type], w: 64, read: String, key: keys.type },
  ] as const;
  return (
    <Group gap={2} wrap="nowrap">
      {fields.map((field) => (
        <Select
          key={field.name}
          aria-label={`${label} ${field.name}`}
          size="xs"
          w={field.w}
          data={field.data as readonly string[] as string[]}
          value={field.value}
          onChange={(value) => value && onChange({ [field.key]: field.read(value) } as Partial<TDayPlan>)}
          disabled={disabled}
          allowDeselect={false}
        />
      ))}
    </Group>
  );
};

/** The weekday panel (spec: at least one day; the last checked day is locked). */
export const DaysPanel = memo(function DaysPanel({
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
        {plan.map((day) => (
          <Group key={day.key} gap="xs" wrap="wrap" style={{ rowGap: 4 }} align="center">
            <Checkbox
              w={110}
              label={WEEKDAY_TITLES[day.key]}
              checked={day.checked}
              disabled={day.checked && checked === 1}
              onChange={(event) => patch(day.key, { checked: event.currentTarget.checked })}
            />
            <Group gap="xs" wrap="wrap" style={{ rowGap: 4 }}>
              {(['start', 'end'] as const).map((which) => (
                <Group key={which} gap={6} wrap="nowrap">
                  <Text size="xs" c="dimmed" w={28} aria-hidden>
                    {which === 'start' ? 'From' : 'to'}
                  </Text>
                  <TimeFields
                    day={day}
                    which={which}
                    disabled={!day.checked}
                    onChange={(change) => patch(day.key, change)}
                  />
                </Group>
              ))}
            </Group>
          </Group>
        ))}
      </Stack>
      {error && (
        <Text size="sm" c="red" role="alert" mt="xs">
          {error}
        </Text>
      )}
    </Paper>
  );
});
