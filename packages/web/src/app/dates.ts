import {
  DEFAULT_TIME_ZONE,
  formatDateTime as formatInZone,
  formatLongDate as formatLongDateInZone,
} from '@sendwell/contracts';
import { useUserQuery } from './session';

/**
 * `value` is an ISO instant from the server; `timeZone` an IANA name. The rule is contracts'
 * (`formatDateTime`), the one the server's texts use too: a time reads the same on every
 * screen. An unknown zone falls back to the default.
 */
export const formatDateTime = (value: string, timeZone: string = DEFAULT_TIME_ZONE): string =>
  formatInZone(value, timeZone);

/** A day in prose, for sentences such as 'Renews on November 22, 2026'. */
export const formatLongDate = (value: string, timeZone: string = DEFAULT_TIME_ZONE): string =>
  formatLongDateInZone(value, timeZone);

/** The signed-in user's time zone: every time on every screen is shown in it. */
export const useTimeZone = (): string => useUserQuery().data?.time_zone || DEFAULT_TIME_ZONE;

/** Formats in the signed-in user's time zone. */
export const useFormatDateTime = (): ((value: string) => string) => {
  const timeZone = useTimeZone();
  return (value) => formatDateTime(value, timeZone);
};
