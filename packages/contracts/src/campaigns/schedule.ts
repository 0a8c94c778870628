import { z } from 'zod';
import { wallClock, zonedInstant } from '../time/zones';

/**
 * When a step goes: its wait after the previous one (in the user's wall clock for days,
 * weeks and months, so a "1 day" wait across a DST change keeps the hour), then the first
 * moment inside the campaign's weekday windows (spec's dailyPlan). A window whose end is at or
 * before its start runs past midnight into the next day.
 */

export const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;
export type TWeekday = (typeof WEEKDAYS)[number];
export const WEEKDAY_TITLES: Record<TWeekday, string> = {
  Sun: 'Sunday',
  Mon: 'Monday',
  Tue: 'Tuesday',
  Wed: 'Wednesday',
  Thu: 'Thursday',
  Fri: 'Friday',
  Sat: 'Saturday',
};

export const CAMPAIGN_MESSAGES = {
  oneDay: 'You must choose at least one',
  titleRequired: 'Campaign Title field is required!',
  subjectRequired: 'Subject field is required!',
  bodyRequired: 'Message Body field is required!',
  replyToInvalid: 'Reply To must be a valid email address.',
  mailPerDelayMin: 'Mail Per Delay (Min 120 sec)',
  acceptLaw: 'Please accept the law and terms to send this campaign.',
  scheduleRequired: 'Please choose when the first campaign mail goes.',
  editWarning: 'When you edit your emails, it will not affect the processes in the queue.',
  empty: 'You have no campaign yet.',
  removeFailed: 'Something went wrong when your recipients deleted!',
  started: 'Your campaign is running.',
  stopped: 'Your campaign is paused.',
  saved: 'Your campaign has been saved.',
  csvMissing: 'Please upload the CSV file first!',
  memberDeleted: 'Your member successfully deleted on list!',
  /** Spec §5: the recipients CSV is at most 1500 KB. */
  csvTooLarge: 'Max 1.5 mb',
} as const;

const ZHour = z.coerce.number().int().min(0).max(12);
const ZMinute = z.coerce.number().int().min(0).max(59);
const ZMeridiem = z.enum(['AM', 'PM']);

/** One weekday of the spec's dailyPlan. */
export const ZDayPlan = z.object({
  key: z.enum(WEEKDAYS),
  title: z.string().optional(),
  checked: z.boolean(),
  startHour: ZHour,
  startMin: ZMinute,
  startType: ZMeridiem,
  endHour: ZHour,
  endMin: ZMinute,
  endType: ZMeridiem,
});
export type TDayPlan = z.infer<typeof ZDayPlan>;

export const ZDailyPlan = z
  .array(ZDayPlan)
  .length(7)
  .refine((plan) => plan.some((day) => day.checked), { message: CAMPAIGN_MESSAGES.oneDay })
  .refine((plan) => new Set(plan.map((day) => day.key)).size === 7, { message: 'Each weekday once.' });
export type TDailyPlan = z.infer<typeof ZDailyPlan>;

/** Spec §9: every day, 12:00 AM to 7:00 PM. */
export const defaultDailyPlan = (): TDailyPlan =>
  WEEKDAYS.map((key) => ({
    key,
    title: WEEKDAY_TITLES[key],
    checked: true,
    startHour: 12,
    startMin: 0,
    startType: 'AM' as const,
    endHour: 7,
    endMin: 0,
    endType: 'PM' as const,
  }));

/** 12-hour clock → minutes after midnight (12 AM is 0, 12 PM is noon). */
export const minutesOf = (hour: number, minute: number, type: 'AM' | 'PM') =>
  ((hour % 12) + (type === 'PM' ? 12 : 0)) * 60 + minute;

type TWindow = { start: number; end: number; crossesMidnight: boolean };

const windowOf = (day: TDayPlan): TWindow => {
  const start = minutesOf(day.startHour, day.startMin, day.startType);
  const end = minutesOf(day.endHour, day.endMin, day.endType);
  return { start, end, crossesMidnight: end <= start };
};

const weekdayOf = (clock: { year: number; month: number; day: number }) =>
  WEEKDAYS[new Date(Date.UTC(clock.year, clock.month - 1, clock.day)).getUTCDay()]!;

const planFor = (plan: TDailyPlan, key: TWeekday) => plan.find((day) => day.key === key)!;

/** Whether an instant falls inside one of the campaign's windows, in the user's time zone. */
export const isWithinWindow = (instant: Date, plan: TDailyPlan, timeZone: string) => {
  const clock = wallClock(instant, timeZone);
  const minute = clock.hour * 60 + clock.minute;
  const today = planFor(plan, weekdayOf(clock));
  if (today.checked) {
    const window = windowOf(today);
    if (window.crossesMidnight ? minute >= window.start : minute >= window.start && minute < window.end) return true;
  }
  const yesterdayDate = new Date(Date.UTC(clock.year, clock.month - 1, clock.day - 1));
  const yesterday = planFor(plan, WEEKDAYS[yesterdayDate.getUTCDay()]!);
  if (yesterday.checked) {
    const window = windowOf(yesterday);
    if (window.crossesMidnight && minute < window.end) return true;
  }
  return false;
};

/** The first instant at or after `from` inside a window (at most a week and a day ahead). */
export const nextAllowedTime = (from: Date, plan: TDailyPlan, timeZone: string): Date => {
  if (isWithinWindow(from, plan, timeZone)) return from;
  const clock = wallClock(from, timeZone);
  for (let offset = 0; offset <= 8; offset++) {
    const date = new Date(Date.UTC(clock.year, clock.month - 1, clock.day + offset));
    const day = planFor(plan, WEEKDAYS[date.getUTCDay()]!);
    if (!day.checked) continue;
    const window = windowOf(day);
    const start = zonedInstant(
      {
        year: date.getUTCFullYear(),
        month: date.getUTCMonth() + 1,
        day: date.getUTCDate(),
        hour: Math.floor(window.start / 60),
        minute: window.start % 60,
      },
      timeZone,
    );
    if (start.getTime() >= from.getTime()) return start;
  }
  throw new Error('A daily plan has at least one day checked.');
};

export const FREQUENCIES = ['hour', 'day', 'week', 'month'] as const;
export type TFrequency = (typeof FREQUENCIES)[number];

/** `from` plus a step's wait: hours exactly; days, weeks and months on the user's wall clock. */
export const addWait = (from: Date, period: number, frequency: TFrequency, timeZone: string): Date => {
  if (frequency === 'hour') return new Date(from.getTime() + period * 3_600_000);
  const clock = wallClock(from, timeZone);
  const days = frequency === 'day' ? period : frequency === 'week' ? period * 7 : 0;
  const months = frequency === 'month' ? period : 0;
  const target = new Date(Date.UTC(clock.year, clock.month - 1 + months, clock.day + days));
  // A month later from the 31st lands on the month's last day, not in the next month.
  if (months > 0 && target.getUTCDate() !== clock.day) target.setUTCDate(0);
  return zonedInstant(
    {
      year: target.getUTCFullYear(),
      month: target.getUTCMonth() + 1,
      day: target.getUTCDate(),
      hour: clock.hour,
      minute: clock.minute,
    },
    timeZone,
  );
};

/** The wait's words, as the preview shows them between emails ('2 days'). */
export const waitText = (period: number, frequency: TFrequency) => `${period} ${frequency}${period === 1 ? '' : 's'}`;

/**
 * Spec §4 overview: sent = sent / (recipients × emails); the others = count / sent; 0 when
 * nothing was sent; whole numbers.
 */
export const overviewPercentages = (counts: {
  recipients: number;
  emails: number;
  sent: number;
  delivered: number;
  opened: number;
  clicked: number;
  bounced: number;
  unsubscribed: number;
}) => {
  const of = (count: number, total: number) => (total > 0 ? Math.round((count / total) * 100) : 0);
  return {
    sent: of(counts.sent, counts.recipients * counts.emails),
    delivered: of(counts.delivered, counts.sent),
    opened: of(counts.opened, counts.sent),
    clicked: of(counts.clicked, counts.sent),
    bounced: of(counts.bounced, counts.sent),
    unsubscribed: of(counts.unsubscribed, counts.sent),
  };
};
