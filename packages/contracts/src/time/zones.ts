import { z } from 'zod';

/**
 * Time zones and the user's wall clock: one set of rules for the server (filters by day,
 * schedules, drip windows, notification texts) and the web app (every time it shows), so a
 * scheduled email reads the same in its list, its edit form and its confirmation. Built on
 * `Intl` alone: Node and every browser carry the IANA database.
 */

/** Where an account starts when nothing better is known (spec: America/New_York). */
export const DEFAULT_TIME_ZONE = 'America/New_York';

export type TWallClock = { year: number; month: number; day: number; hour: number; minute: number };

/** One formatter per time zone: building one costs far more than using it (the drip scheduler asks often). */
const wallClockFormats = new Map<string, Intl.DateTimeFormat>();
const wallClockFormat = (timeZone: string) => {
  let format = wallClockFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    });
    wallClockFormats.set(timeZone, format);
  }
  return format;
};

/** The wall-clock time of an instant in a time zone. */
export const wallClock = (instant: Date, timeZone: string): TWallClock => {
  const parts = Object.fromEntries(
    wallClockFormat(timeZone)
      .formatToParts(instant)
      .map((part) => [part.type, part.value]),
  );
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour) % 24,
    minute: Number(parts.minute),
  };
};

const sameClock = (a: TWallClock, b: TWallClock) =>
  a.year === b.year && a.month === b.month && a.day === b.day && a.hour === b.hour && a.minute === b.minute;

/**
 * The instant a wall-clock time in a time zone stands for. Across a DST fold (1:30 AM twice)
 * the earlier; inside a DST gap (2:30 AM that never happens) the time the clocks show after
 * the jump (3:30 AM), never an hour before what was asked, as `Temporal`'s 'compatible' rule.
 */
export const zonedInstant = (clock: TWallClock, timeZone: string) => {
  const asUtc = Date.UTC(clock.year, clock.month - 1, clock.day, clock.hour, clock.minute);
  const offsetAt = (instant: number) => {
    const seen = wallClock(new Date(instant), timeZone);
    return Date.UTC(seen.year, seen.month - 1, seen.day, seen.hour, seen.minute) - instant;
  };
  // The zone's offsets a day before and a day after: the same on most days, two around a change.
  const before = asUtc - offsetAt(asUtc - 86_400_000);
  const after = asUtc - offsetAt(asUtc + 86_400_000);
  const matching = [before, after].filter((instant) => sameClock(wallClock(new Date(instant), timeZone), clock));
  // Shown twice: the earlier. Never shown (a gap): read with the offset before the jump, which
  // lands on the clock after it.
  return new Date(matching.length > 0 ? Math.min(...matching) : before);
};

/** Whether a name is a time zone this runtime knows (an IANA name such as Europe/Berlin, or UTC). */
export const isTimeZone = (name: string) => {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
};

/** A zone's canonical name (`europe/berlin` and `Europe/Berlin` are one). */
export const canonicalTimeZone = (name: string) =>
  new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;

export const TIME_ZONE_MESSAGE = 'Please choose a time zone from the list.';

/** A time zone as the API takes it: a known IANA name, stored in its canonical spelling. */
export const ZTimeZone = z
  .string()
  .trim()
  .max(64)
  .refine(isTimeZone, { message: TIME_ZONE_MESSAGE })
  .transform(canonicalTimeZone);

/** The zones a user may choose: every IANA zone the runtime knows, UTC included. */
export const timeZoneNames = (): string[] => {
  const names = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return names.includes('UTC') ? names : [...names, 'UTC'];
};

/**
 * The zone this runtime (the browser) is in, when it is one Sendwell can use; the default
 * otherwise. Registration offers it.
 */
export const runtimeTimeZone = () => {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return zone && isTimeZone(zone) ? canonicalTimeZone(zone) : DEFAULT_TIME_ZONE;
};

/** A zone's offset from UTC at an instant, as people read it: 'UTC−05:00', 'UTC+05:30', 'UTC'. */
export const utcOffsetLabel = (timeZone: string, at: Date = new Date()) => {
  const clock = wallClock(at, timeZone);
  const minutes = Math.round(
    (Date.UTC(clock.year, clock.month - 1, clock.day, clock.hour, clock.minute) -
      Math.floor(at.getTime() / 60_000) * 60_000) /
      60_000,
  );
  if (minutes === 0) return 'UTC';
  const sign = minutes < 0 ? '−' : '+';
  const pad = (value: number) => String(value).padStart(2, '0');
  return `UTC${sign}${pad(Math.floor(Math.abs(minutes) / 60))}:${pad(Math.abs(minutes) % 60)}`;
};

/** A zone as a picker shows it: 'Europe/Berlin (UTC+01:00)', with today's offset. */
export const timeZoneLabel = (timeZone: string, at: Date = new Date()) =>
  `${timeZone.replaceAll('_', ' ')} (${utcOffsetLabel(timeZone, at)})`;

const pad2 = (value: number) => String(value).padStart(2, '0');

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** The instant of an ISO text or a Date; null when it is not a time. */
const instantOf = (value: Date | string) => {
  const instant = value instanceof Date ? value : new Date(value);
  return Number.isNaN(instant.getTime()) ? null : instant;
};

/** The zone itself when the runtime knows it, else the default (a zone stored before a rename). */
const usableZone = (timeZone: string) => (isTimeZone(timeZone) ? timeZone : DEFAULT_TIME_ZONE);

/**
 * The spec's display format for a time, `MM/DD/YYYY h:mm A`, on the user's wall clock: every
 * table, card and notification shows times this way. An empty string for a value that is no time.
 */
export const formatDateTime = (value: Date | string, timeZone: string) => {
  const instant = instantOf(value);
  if (!instant) return '';
  const clock = wallClock(instant, usableZone(timeZone));
  const hour12 = clock.hour % 12 === 0 ? 12 : clock.hour % 12;
  return `${pad2(clock.month)}/${pad2(clock.day)}/${clock.year} ${hour12}:${pad2(clock.minute)} ${clock.hour < 12 ? 'AM' : 'PM'}`;
};

/** A day in prose, for sentences such as 'Renews on November 22, 2026'. */
export const formatLongDate = (value: Date | string, timeZone: string) => {
  const instant = instantOf(value);
  if (!instant) return '';
  const clock = wallClock(instant, usableZone(timeZone));
  return `${MONTHS[clock.month - 1]} ${clock.day}, ${clock.year}`;
};

/** The user's calendar day of an instant, `YYYY-MM-DD` (the dashboard's and the filters' days). */
export const dayOf = (value: Date | string, timeZone: string) => {
  const instant = instantOf(value);
  if (!instant) return '';
  const clock = wallClock(instant, usableZone(timeZone));
  return `${clock.year}-${pad2(clock.month)}-${pad2(clock.day)}`;
};
