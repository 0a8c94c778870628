import { Group, Select } from '@mantine/core';
import { DatePickerInput } from '@mantine/dates';
import { IconCalendar, IconClock } from '@tabler/icons-react';
import { useState } from 'react';

/**
 * The spec's date filter as query parameters (`first_date`, `last_date`): a day as
 * `YYYY-MM-DD` (the server reads a bare last day as the whole day, in the user's time zone),
 * or with a time as `YYYY-MM-DD HH:mm:ss` (spec §9's filter format).
 */
export type TDateRange = { first_date?: string | undefined; last_date?: string | undefined };

type TDays = [string | null, string | null];

/** Spec §9: the history date filter's times go in 30-minute steps. */
const TIME_SLOTS = Array.from({ length: 48 }, (_, index) => {
  const hours = Math.floor(index / 2);
  const minutes = index % 2 === 0 ? '00' : '30';
  const hour12 = hours % 12 === 0 ? 12 : hours % 12;
  return {
    value: `${String(hours).padStart(2, '0')}:${minutes}`,
    label: `${hour12}:${minutes} ${hours < 12 ? 'AM' : 'PM'}`,
  };
});

const dayOf = (value: string | undefined) => (value ? value.slice(0, 10) : null);
const timeOf = (value: string | undefined) => (value && value.length > 10 ? value.slice(11, 16) : null);

const toFilter = (day: string | null, time: string | null) => (day ? (time ? `${day} ${time}:00` : day) : undefined);

type TProps = {
  value: TDateRange;
  onChange: (value: TDateRange) => void;
  /** Adds a time to each end (History and Suppression, spec §2 "date range with time" and §9). */
  withTime?: boolean;
  size?: 'xs' | 'sm';
};

/**
 * The one date filter of every table that has one (History, Scheduled Emails, Suppression,
 * the credit log, the dashboard's delivery events): a range of days picked in one calendar,
 * and with `withTime` a time for each end. The range counts once both days are picked (or
 * both cleared); half a range is not sent.
 */
export const DateRangeFilter = ({ value, onChange, withTime = false, size = 'sm' }: TProps) => {
  // The picker holds half a range while the second day is being picked; the filter does not.
  const [days, setDays] = useState<TDays>([dayOf(value.first_date), dayOf(value.last_date)]);
  const [firstTime, lastTime] = [timeOf(value.first_date), timeOf(value.last_date)];
  const [firstDay, lastDay] = days;
  const isComplete = Boolean(firstDay && lastDay);

  const emit = (next: TDays, times: [string | null, string | null]) =>
    onChange(
      next[0] && next[1]
        ? { first_date: toFilter(next[0], times[0]), last_date: toFilter(next[1], times[1]) }
        : { first_date: undefined, last_date: undefined },
    );

  const chooseDays = (next: TDays) => {
    setDays(next);
    const isCleared = !next[0] && !next[1];
    if (isCleared || (next[0] && next[1])) emit(next, [firstTime, lastTime]);
  };

  const timeWidth = { base: 'calc(50% - var(--mantine-spacing-xs) / 2)', xs: 130 };
  return (
    // A row of its own on a phone, so a picked range ("2026-11-20 – 2026-11-26") is read whole.
    <Group gap="xs" align="flex-end" wrap="wrap" role="group" aria-label="Date filter" w={{ base: '100%', xs: 'auto' }}>
      <DatePickerInput
        type="range"
        size={size}
        label="Date range"
        placeholder="Any date"
        valueFormat="YYYY-MM-DD"
        leftSection={<IconCalendar size={16} aria-hidden />}
        allowSingleDateInRange
        clearable
        w={{ base: '100%', xs: 250 }}
        value={days}
        onChange={(next) => chooseDays(next as TDays)}
      />
      {withTime && (
        <>
          <Select
            size={size}
            label="From time"
            placeholder="Start of day"
            leftSection={<IconClock size={16} aria-hidden />}
            data={TIME_SLOTS}
            value={firstTime}
            onChange={(time) => emit(days, [time, lastTime])}
            disabled={!isComplete}
            clearable
            w={timeWidth}
          />
          <Select
            size={size}
            label="To time"
            placeholder="End of day"
            leftSection={<IconClock size={16} aria-hidden />}
            data={TIME_SLOTS}
            value={lastTime}
            onChange={(time) => emit(days, [firstTime, time])}
            disabled={!isComplete}
            clearable
            w={timeWidth}
          />
        </>
      )}
    </Group>
  );
};
