import { describe, expect, it } from 'vitest';
import {
  addWait,
  defaultDailyPlan,
  isWithinWindow,
  nextAllowedTime,
  overviewPercentages,
  type TDailyPlan,
  ZDailyPlan,
} from './schedule';

const NY = 'America/New_York';
const at = (iso: string) => new Date(iso);
const plan = (edit: (plan: TDailyPlan) => void) => {
  const value = defaultDailyPlan();
  edit(value);
  return value;
};

describe('waits in the user’s wall clock', () => {
  it('keeps the hour across the spring and autumn DST changes in New York', () => {
    // Sat 7 March 2026 10:00 EST → Sun 8 March 10:00 EDT: 23 hours later.
    expect(addWait(at('2026-03-07T15:00:00Z'), 1, 'day', NY).toISOString()).toBe('2026-03-08T14:00:00.000Z');
    // Sat 31 October 10:00 EDT → Sun 1 November 10:00 EST: 25 hours later.
    expect(addWait(at('2026-10-31T14:00:00Z'), 1, 'day', NY).toISOString()).toBe('2026-11-01T15:00:00.000Z');
    // Hours are hours, DST or not.
    expect(addWait(at('2026-03-08T06:00:00Z'), 2, 'hour', NY).toISOString()).toBe('2026-03-08T08:00:00.000Z');
    expect(addWait(at('2026-03-02T15:00:00Z'), 1, 'week', NY).toISOString()).toBe('2026-03-09T14:00:00.000Z');
  });

  it('adds months on the calendar, ending on the last day of a shorter month', () => {
    expect(addWait(at('2026-01-31T15:00:00Z'), 1, 'month', NY).toISOString()).toBe('2026-02-28T15:00:00.000Z');
    expect(addWait(at('2026-01-15T15:00:00Z'), 2, 'month', NY).toISOString()).toBe('2026-03-15T14:00:00.000Z');
  });
});

describe('weekday windows', () => {
  it('holds by default every day from 12:00 AM to 7:00 PM', () => {
    const standard = defaultDailyPlan();
    expect(isWithinWindow(at('2026-11-24T05:00:00Z'), standard, NY)).toBe(true); // 00:00 local
    expect(isWithinWindow(at('2026-11-24T23:59:00Z'), standard, NY)).toBe(true); // 18:59
    expect(isWithinWindow(at('2026-11-25T00:00:00Z'), standard, NY)).toBe(false); // 19:00
    // 20:00 local is outside: the next window opens at midnight.
    expect(nextAllowedTime(at('2026-11-25T01:00:00Z'), standard, NY).toISOString()).toBe('2026-11-25T05:00:00.000Z');
  });

  it('runs a window that crosses midnight into the next day, on the day it starts', () => {
    // Fridays only, 10:00 PM to 2:00 AM.
    const late = plan((days) => {
      for (const day of days) day.checked = day.key === 'Fri';
      const friday = days.find((day) => day.key === 'Fri')!;
      Object.assign(friday, { startHour: 10, startMin: 0, startType: 'PM', endHour: 2, endMin: 0, endType: 'AM' });
    });
    expect(isWithinWindow(at('2026-11-28T03:00:00Z'), late, NY)).toBe(true); // Fri 22:00
    expect(isWithinWindow(at('2026-11-28T06:30:00Z'), late, NY)).toBe(true); // Sat 01:30, Friday's window
    expect(isWithinWindow(at('2026-11-28T07:00:00Z'), late, NY)).toBe(false); // Sat 02:00
    expect(isWithinWindow(at('2026-11-29T04:00:00Z'), late, NY)).toBe(false); // Sat 23:00: Saturday is off
    // From Saturday 03:00 the next window is the following Friday at 22:00.
    expect(nextAllowedTime(at('2026-11-28T08:00:00Z'), late, NY).toISOString()).toBe('2026-12-05T03:00:00.000Z');
  });

  it('with all but one day unchecked, waits for that day; the plan needs at least one day', () => {
    const wednesdays = plan((days) => {
      for (const day of days) day.checked = day.key === 'Wed';
    });
    // Thursday noon → next Wednesday midnight.
    expect(nextAllowedTime(at('2026-11-26T17:00:00Z'), wednesdays, NY).toISOString()).toBe('2026-12-02T05:00:00.000Z');
    // Inside the window: now.
    expect(nextAllowedTime(at('2026-12-02T17:00:00Z'), wednesdays, NY).toISOString()).toBe('2026-12-02T17:00:00.000Z');
    const none = plan((days) => {
      for (const day of days) day.checked = false;
    });
    expect(ZDailyPlan.safeParse(none).error?.issues[0]?.message).toBe('You must choose at least one');
  });

  it('opens a window on a DST day at its wall-clock start', () => {
    const mornings = plan((days) => {
      for (const day of days) Object.assign(day, { startHour: 9, startType: 'AM', endHour: 5, endType: 'PM' });
    });
    // Sunday 8 March 2026 (spring forward), 06:00 local EDT → 09:00 EDT = 13:00Z.
    expect(nextAllowedTime(at('2026-03-08T10:00:00Z'), mornings, NY).toISOString()).toBe('2026-03-08T13:00:00.000Z');
    // Sunday 1 November 2026 (fall back), 06:00 EST → 09:00 EST = 14:00Z.
    expect(nextAllowedTime(at('2026-11-01T11:00:00Z'), mornings, NY).toISOString()).toBe('2026-11-01T14:00:00.000Z');
  });
});

describe('the overview’s percentages', () => {
  it('follows the spec: sent over recipients × emails, the rest over sent, whole numbers, 0 without sends', () => {
    expect(
      overviewPercentages({
        recipients: 200,
        emails: 3,
        sent: 150,
        delivered: 149,
        opened: 50,
        clicked: 7,
        bounced: 1,
        unsubscribed: 2,
      }),
    ).toEqual({ sent: 25, delivered: 99, opened: 33, clicked: 5, bounced: 1, unsubscribed: 1 });
    expect(
      overviewPercentages({
        recipients: 10,
        emails: 2,
        sent: 0,
        delivered: 0,
        opened: 0,
        clicked: 0,
        bounced: 0,
        unsubscribed: 0,
      }),
    ).toEqual({ sent: 0, delivered: 0, opened: 0, clicked: 0, bounced: 0, unsubscribed: 0 });
  });
});
