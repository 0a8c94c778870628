import { describe, expect, it } from 'vitest';
import { deliveryParts, formatDeliveryTime, parseDeliveryTime } from '../sending/sending';
import {
  canonicalTimeZone,
  DEFAULT_TIME_ZONE,
  dayOf,
  formatDateTime,
  formatLongDate,
  isTimeZone,
  timeZoneLabel,
  timeZoneNames,
  utcOffsetLabel,
  wallClock,
  ZTimeZone,
  zonedInstant,
} from './zones';

describe('formatDateTime', () => {
  it('shows one instant on each user’s own clock, in the spec’s format', () => {
    const instant = '2026-11-10T15:00:00.000Z';
    expect(formatDateTime(instant, 'America/New_York')).toBe('11/10/2026 10:00 AM');
    expect(formatDateTime(instant, 'Europe/Berlin')).toBe('11/10/2026 4:00 PM');
    expect(formatDateTime(instant, 'Asia/Tokyo')).toBe('11/11/2026 12:00 AM');
    expect(formatDateTime(instant, 'Asia/Kolkata')).toBe('11/10/2026 8:30 PM');
    expect(formatDateTime(instant, 'UTC')).toBe('11/10/2026 3:00 PM');
  });

  it('tells the two 1:30 AMs of New York’s fall-back day (2026-11-01) apart by their instants, and keeps the hour after it', () => {
    // 05:30Z is 1:30 AM EDT, 06:30Z 1:30 AM EST: the same wall clock, an hour apart.
    expect(formatDateTime('2026-11-01T05:30:00Z', 'America/New_York')).toBe('11/01/2026 1:30 AM');
    expect(formatDateTime('2026-11-01T06:30:00Z', 'America/New_York')).toBe('11/01/2026 1:30 AM');
    expect(formatDateTime('2026-11-01T07:30:00Z', 'America/New_York')).toBe('11/01/2026 2:30 AM');
    expect(formatDateTime('2026-10-31T14:00:00Z', 'America/New_York')).toBe('10/31/2026 10:00 AM');
    expect(formatDateTime('2026-11-02T15:00:00Z', 'America/New_York')).toBe('11/02/2026 10:00 AM');
  });

  it('follows Berlin across its fall-back day (2026-10-25): 10:00 AM is 08:00Z before, 09:00Z after', () => {
    expect(formatDateTime('2026-10-24T08:00:00Z', 'Europe/Berlin')).toBe('10/24/2026 10:00 AM');
    expect(formatDateTime('2026-10-25T09:00:00Z', 'Europe/Berlin')).toBe('10/25/2026 10:00 AM');
    expect(formatDateTime('2026-10-25T00:30:00Z', 'Europe/Berlin')).toBe('10/25/2026 2:30 AM');
    expect(formatDateTime('2026-10-25T01:30:00Z', 'Europe/Berlin')).toBe('10/25/2026 2:30 AM');
  });

  it('shows nothing for a value that is no time, and the default zone’s clock for an unknown zone', () => {
    expect(formatDateTime('not a date', 'UTC')).toBe('');
    expect(formatDateTime('2026-11-10T15:00:00Z', 'Mars/Olympus_Mons')).toBe('11/10/2026 10:00 AM');
  });
});

describe('zonedInstant and the delivery time', () => {
  it('takes the earlier instant for a time the clock shows twice, and the time after the jump for one it skips', () => {
    const clock = { year: 2026, month: 11, day: 1, hour: 1, minute: 30 };
    expect(zonedInstant(clock, 'America/New_York').toISOString()).toBe('2026-11-01T05:30:00.000Z');
    // 2:30 AM on 2026-03-08 never happens in New York: it is 3:30 AM EDT, never 1:30 AM.
    const skipped = zonedInstant({ year: 2026, month: 3, day: 8, hour: 2, minute: 30 }, 'America/New_York');
    expect(skipped.toISOString()).toBe('2026-03-08T07:30:00.000Z');
    expect(formatDateTime(skipped, 'America/New_York')).toBe('03/08/2026 3:30 AM');
    const berlin = zonedInstant({ year: 2026, month: 10, day: 25, hour: 2, minute: 30 }, 'Europe/Berlin');
    expect(berlin.toISOString()).toBe('2026-10-25T00:30:00.000Z');
  });

  it('reads a scheduled email’s time back as it was written, in any zone, on DST days too', () => {
    for (const [text, zone] of [
      ['2026-11-01 10:00 AM', 'America/New_York'],
      ['2026-11-01 11:55 PM', 'America/New_York'],
      ['2026-10-25 10:00 AM', 'Europe/Berlin'],
      ['2026-10-25 12:00 AM', 'Europe/Berlin'],
      ['2026-11-10 10:00 AM', 'Asia/Tokyo'],
    ] as const) {
      const instant = parseDeliveryTime(text, zone)!;
      expect(formatDeliveryTime(instant, zone), `${text} ${zone}`).toBe(text);
    }
    expect(parseDeliveryTime('2026-11-01 10:00 AM', 'America/New_York')?.toISOString()).toBe(
      '2026-11-01T15:00:00.000Z',
    );
    expect(parseDeliveryTime('2026-10-31 10:00 AM', 'America/New_York')?.toISOString()).toBe(
      '2026-10-31T14:00:00.000Z',
    );
    // The edit form's picker starts from the list's instant on the user's clock, not the browser's.
    expect(deliveryParts(new Date('2026-11-10T15:00:00Z'), 'America/New_York')).toEqual({
      date: '2026-11-10',
      slot: '10:00',
    });
    expect(deliveryParts(new Date('2026-11-10T15:00:00Z'), 'Asia/Tokyo')).toEqual({
      date: '2026-11-11',
      slot: '00:00',
    });
    expect(deliveryParts(new Date('2026-10-25T01:30:00Z'), 'Europe/Berlin')).toEqual({
      date: '2026-10-25',
      slot: '02:30',
    });
  });
});

describe('days', () => {
  it('puts an instant on the user’s calendar day', () => {
    expect(dayOf('2026-11-10T03:00:00Z', 'America/New_York')).toBe('2026-11-09');
    expect(dayOf('2026-11-10T03:00:00Z', 'Europe/Berlin')).toBe('2026-11-10');
    expect(formatLongDate('2026-12-22T03:00:00Z', 'America/Los_Angeles')).toBe('December 21, 2026');
    expect(wallClock(new Date('2026-11-01T06:30:00Z'), 'America/New_York')).toEqual({
      year: 2026,
      month: 11,
      day: 1,
      hour: 1,
      minute: 30,
    });
  });
});

describe('time zone names', () => {
  it('accepts IANA names in their canonical spelling and refuses anything else with one message', () => {
    expect(isTimeZone('Europe/Berlin')).toBe(true);
    expect(isTimeZone('America/Argentina/Buenos_Aires')).toBe(true);
    expect(isTimeZone('UTC')).toBe(true);
    for (const bad of ['', 'Europe/Nowhere', 'GMT+5; drop table', '../etc/passwd', ' ', 'Europe//Berlin']) {
      expect(isTimeZone(bad), bad).toBe(false);
    }
    expect(canonicalTimeZone('europe/berlin')).toBe('Europe/Berlin');
    expect(ZTimeZone.parse(' europe/berlin ')).toBe('Europe/Berlin');
    expect(ZTimeZone.safeParse('Europe/Nowhere').error?.issues[0]?.message).toBe(
      'Please choose a time zone from the list.',
    );
  });

  it('offers every zone the runtime knows, the default and UTC among them, labelled with the offset of the day', () => {
    const names = timeZoneNames();
    expect(names.length).toBeGreaterThan(300);
    expect(names).toContain(DEFAULT_TIME_ZONE);
    expect(names).toContain('UTC');
    expect(names.every(isTimeZone)).toBe(true);
    expect(utcOffsetLabel('America/New_York', new Date('2026-07-01T12:00:00Z'))).toBe('UTC−04:00');
    expect(utcOffsetLabel('America/New_York', new Date('2026-12-01T12:00:00Z'))).toBe('UTC−05:00');
    expect(utcOffsetLabel('Asia/Kolkata', new Date('2026-12-01T12:00:00Z'))).toBe('UTC+05:30');
    expect(timeZoneLabel('America/Los_Angeles', new Date('2026-12-01T12:00:00Z'))).toBe(
      'America/Los Angeles (UTC−08:00)',
    );
    expect(timeZoneLabel('UTC')).toBe('UTC (UTC)');
  });
});
