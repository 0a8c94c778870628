import { DEFAULT_TIME_ZONE } from '@sendwell/contracts';
import dayjs from 'dayjs';
import timezone from 'dayjs/plugin/timezone';
import utc from 'dayjs/plugin/utc';
import { useUserQuery } from './session';

dayjs.extend(utc);
dayjs.extend(timezone);

/** The spec's display format for every date and time a table shows. */
export const DISPLAY_DATE_TIME = 'MM/DD/YYYY h:mm A';

/** `value` is an ISO instant from the server; `timeZone` an IANA name. An unknown zone falls back to the default. */
const formatInZone = (value: string, timeZone: string, format: string): string => {
  const instant = dayjs.utc(value);
  if (!instant.isValid()) return '';
  try {
    return instant.tz(timeZone).format(format);
  } catch {
    return instant.tz(DEFAULT_TIME_ZONE).format(format);
  }
};

export const formatDateTime = (value: string, timeZone: string = DEFAULT_TIME_ZONE): string =>
  formatInZone(value, timeZone, DISPLAY_DATE_TIME);

/** A day in prose, for sentences such as 'Renews on November 22, 2026'. */
export const formatLongDate = (value: string, timeZone: string = DEFAULT_TIME_ZONE): string =>
  formatInZone(value, timeZone, 'MMMM D, YYYY');

/** Formats in the signed-in user's time zone. */
export const useFormatDateTime = (): ((value: string) => string) => {
  const timeZone = useUserQuery().data?.time_zone || DEFAULT_TIME_ZONE;
  return (value) => formatDateTime(value, timeZone);
};
