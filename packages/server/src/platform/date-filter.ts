import { type RawBuilder, sql } from 'kysely';

/**
 * The spec's date filters (`first_date`, `last_date`: YYYY-MM-DD, or with a time) as bounds
 * on a timestamp column, read in the user's time zone: a bare last day covers the whole day.
 */
export const dateBounds = (
  column: string,
  { first_date, last_date }: { first_date?: string | undefined; last_date?: string | undefined },
  timeZone: RawBuilder<string> | string,
) => {
  const bounds: RawBuilder<boolean>[] = [];
  if (first_date) bounds.push(sql<boolean>`${sql.ref(column)} >= (${first_date}::timestamp at time zone ${timeZone})`);
  if (last_date) {
    bounds.push(
      last_date.length === 10
        ? sql<boolean>`${sql.ref(column)} < ((${last_date}::date + 1)::timestamp at time zone ${timeZone})`
        : sql<boolean>`${sql.ref(column)} <= (${last_date}::timestamp at time zone ${timeZone})`,
    );
  }
  return bounds;
};
