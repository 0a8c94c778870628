import { DEFAULT_MAIL_PER_DAY, TEST_INBOX_DRIVER } from '@sendwell/contracts';
import { sql } from 'kysely';
import type { TPlatform } from '../../platform/context';
import type { Executor } from '../../platform/db';
import type { SendingAccountsTable } from '../../platform/db-schema';

type TCapped = {
  provider: SendingAccountsTable['provider'];
  driver: string | null;
  mail_per_day: number;
  operator_mail_per_day: number | null;
};

/** Whether an account's messages a day are capped: SMTP and Gmail accounts, not Mailgun nor the local test inbox. */
export const isDailyCapped = (account: Pick<TCapped, 'provider' | 'driver'>) =>
  account.provider !== 'mailgun' && account.driver !== TEST_INBOX_DRIVER;

/**
 * An account's cap on messages a day, or null when it has none (`isDailyCapped`): the cap an
 * operator set for it, else its Maximum Email per Day (the form's 1 to 1,000; 500 when none
 * is set).
 */
export const dailyCapOf = (account: TCapped) =>
  isDailyCapped(account)
    ? (account.operator_mail_per_day ?? (Number(account.mail_per_day) || DEFAULT_MAIL_PER_DAY))
    : null;

/** Today's date in the account's user's time zone (the caller reads it once: `timeZoneOf`). */
const todayIn = (timeZone: string) => sql<string>`(now() at time zone ${timeZone})::date`;

/** What an account has sent today, in its user's time zone. */
export const sentToday = async (db: Executor, accountId: number, timeZone: string) => {
  const row = await db
    .selectFrom('account_daily_counts')
    .select('sent')
    .where('account_id', '=', accountId)
    .where('day', '=', todayIn(timeZone))
    .executeTakeFirst();
  return row?.sent ?? 0;
};

export type TReservation = { day: string; granted: number };

/**
 * Reserves up to `wanted` of today's remaining messages for a claim, under the day row's
 * lock: two sends from one account never pass the cap together. A worker that dies keeps
 * its reservation counted, so the cap errs on the side of sending less, never more.
 */
export const reserveToday = (
  platform: TPlatform,
  { accountId, timeZone }: { accountId: number; timeZone: string },
  cap: number,
  wanted: number,
) =>
  platform.db.transaction().execute(async (trx): Promise<TReservation> => {
    await sql`insert into account_daily_counts (account_id, day) values (${accountId}, ${todayIn(timeZone)})
              on conflict do nothing`.execute(trx);
    const row = await sql<{ day: string; sent: number }>`
      select day::text as day, sent from account_daily_counts
       where account_id = ${accountId} and day = ${todayIn(timeZone)} for update`.execute(trx);
    const { day, sent } = row.rows[0]!;
    const granted = Math.max(0, Math.min(wanted, cap - sent));
    if (granted > 0) {
      await sql`update account_daily_counts set sent = sent + ${granted}
                 where account_id = ${accountId} and day = ${day}::date`.execute(trx);
    }
    return { day, granted };
  });

/** Gives back what a reservation did not send (claimed fewer, deferred, failed). */
export const releaseReservation = async (
  db: Executor,
  accountId: number,
  reservation: TReservation,
  unused: number,
) => {
  if (unused <= 0) return;
  await sql`update account_daily_counts set sent = greatest(0, sent - ${unused})
             where account_id = ${accountId} and day = ${reservation.day}::date`.execute(db);
};

/** The start of the user's next day: when a capped send goes on. */
export const nextDayStart = async (db: Executor, timeZone: string) => {
  const row = await sql<{ at: Date; day: string }>`
    select (${todayIn(timeZone)} + 1)::timestamp at time zone ${timeZone} as at,
           (${todayIn(timeZone)} + 1)::text as day`.execute(db);
  return row.rows[0]!;
};
