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

/**
 * The cap counts the last 24 hours, as providers count theirs (R43): a window nothing the user
 * sets can move. (It counted the day of the user's time zone, and a change of zone across the
 * date line began a new day at once.)
 */
export const CAP_WINDOW_HOURS = 24;
const WINDOW = sql`make_interval(hours => ${CAP_WINDOW_HOURS})`;

/**
 * Keeps the cap's advisory locks apart from others (the account id second): one reservation
 * of an account at a time, so two sends from it never pass the cap together.
 */
const CAP_LOCK_CLASS = 0x0ca9_0001;

/**
 * What an account sent in the last 24 hours, reservations of claims in flight included (what
 * the Send Email page and the operator show against the cap).
 */
export const sentInWindow = async (db: Executor, accountId: number) => {
  const row = await sql<{ sent: number }>`
    select coalesce(sum(sent), 0)::int as sent from account_cap_reservations
     where account_id = ${accountId} and counted_at > now() - ${WINDOW}`.execute(db);
  return row.rows[0]?.sent ?? 0;
};

/** A reservation of the window's room for one claim; `id` is null when nothing was granted. */
export type TReservation = { id: number | null; granted: number };

/**
 * Reserves up to `wanted` of the window's remaining room for a claim, under the account's
 * lock. The row counts until 24 hours after `leaseMs` from now: no message of the claim starts
 * past its lease (R4), so however late its messages go, and if this worker dies with them,
 * the window holds them at least 24 hours. The account's rows past the window go here too.
 */
export const reserveRoom = (
  platform: TPlatform,
  { accountId, leaseMs }: { accountId: number; leaseMs: number },
  cap: number,
  wanted: number,
) =>
  platform.db.transaction().execute(async (trx): Promise<TReservation> => {
    await sql`select pg_advisory_xact_lock(${CAP_LOCK_CLASS}::int, (${accountId}::bigint % 2147483648)::int)`.execute(
      trx,
    );
    await sql`delete from account_cap_reservations
               where account_id = ${accountId} and counted_at <= now() - ${WINDOW}`.execute(trx);
    const granted = Math.max(0, Math.min(wanted, cap - (await sentInWindow(trx, accountId))));
    if (granted === 0) return { id: null, granted };
    const row = await sql<{ id: number }>`
      insert into account_cap_reservations (account_id, counted_at, sent)
      values (${accountId}, now() + make_interval(secs => ${leaseMs / 1000}), ${granted})
      returning id`.execute(trx);
    return { id: Number(row.rows[0]!.id), granted };
  });

/**
 * Gives back what a reservation did not send (claimed fewer, deferred, failed), once its claim
 * is over: every message of it has had its answer, so it counts from now rather than from
 * the end of its lease. Lost (a database blip), the reservation stays counted as it was.
 */
export const releaseReservation = async (db: Executor, reservation: TReservation, unused: number) => {
  if (reservation.id === null) return;
  await sql`update account_cap_reservations
               set sent = greatest(0, sent - ${Math.max(0, unused)}), counted_at = least(counted_at, now())
             where id = ${reservation.id}`.execute(db);
};

/**
 * When the window next has room under `cap`: 24 hours after the moment enough of its oldest
 * messages were counted that the rest are under the cap (rounded up to the minute, which is
 * what the send's note shows). Now, when it has room already (another send gave some back).
 */
export const roomFreesAt = async (db: Executor, accountId: number, cap: number): Promise<Date> => {
  if ((await sentInWindow(db, accountId)) < cap) return new Date();
  const row = await sql<{ at: Date }>`
    select date_trunc('minute', counted_at + ${WINDOW}) + interval '1 minute' as at from (
      select counted_at, id,
             sum(sent) over () - sum(sent) over (order by counted_at, id) as still_counted
        from account_cap_reservations
       where account_id = ${accountId} and counted_at > now() - ${WINDOW} and sent > 0
    ) oldest_first
     where still_counted < ${cap}
     order by counted_at, id
     limit 1`.execute(db);
  const at = row.rows[0]?.at;
  return at && at.getTime() > Date.now() ? at : new Date();
};
