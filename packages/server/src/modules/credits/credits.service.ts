import type { TCreditBalance, TCreditLogQuery, TCreditType, TLimitDialog } from '@sendwell/contracts';
import { sql } from 'kysely';
import type { TPlatform } from '../../platform/context';
import type { Executor } from '../../platform/db';
import { HttpError } from '../../platform/errors';
import { paginate } from '../../platform/paging';
import { publishToUser } from '../../platform/realtime';
import * as repository from './credits.repository';

/** The spec's wording when a balance cannot pay for the work (§8, insufficient credit). */
export const INSUFFICIENT_CREDITS_MESSAGE = 'To complete this process; please buy credits.';

/**
 * A charge the balance cannot cover: 402 `ERR_LIMIT` with the spec's warning dialog (§8,
 * verification ERR_LIMIT): the server's title, message and buttons, and where confirm takes
 * the browser (Buy Credits). The page shows it as it is, not as a generic "Error!".
 */
export class InsufficientCreditsError extends HttpError {
  constructor(
    readonly needed: number,
    readonly available: number,
  ) {
    super(402, INSUFFICIENT_CREDITS_MESSAGE, 'ERR_LIMIT', {
      title: 'Not enough credits',
      message: `This needs ${needed.toLocaleString('en-US')} ${needed === 1 ? 'credit' : 'credits'}; you have ${available.toLocaleString('en-US')}. ${INSUFFICIENT_CREDITS_MESSAGE}`,
      confirmButtonText: 'Buy Credits',
      cancelButtonText: 'Cancel',
      confirmButtonColor: 'blue',
      cancelButtonColor: 'gray',
      link: null,
      url: '/settings/subscription',
    } satisfies TLimitDialog);
  }
}

/**
 * The stored figures in the spec's terms: `balance` is what is left to spend (usable) and
 * `used` what work spent, so the total is their sum (usable = total − used, as the spec
 * and every screen compute it).
 */
export const toCreditBalance = ({ balance, used }: { balance: number; used: number }): TCreditBalance => ({
  totalCredit: balance + used,
  usedCredit: used,
});

type TChange = { userId: number; type: TCreditType; quantity: number; reference?: string | null };

/**
 * Records one change to a user's credits inside the caller's transaction: the balance
 * moves, the entry is written, and the new balance is announced to the user's tabs when
 * (and only if) the transaction commits. A charge the balance cannot cover throws
 * InsufficientCreditsError and changes nothing.
 */
export const changeCredits = async (trx: Executor, change: TChange): Promise<TCreditBalance> => {
  if (!Number.isInteger(change.quantity) || change.quantity === 0) {
    throw new Error(`A credit change is a non-zero whole number, not ${change.quantity}.`);
  }
  const moved = await repository.moveBalance(trx, change.userId, change.type, change.quantity);
  if (!moved) {
    const { balance } = await repository.findBalance(trx, change.userId);
    throw new InsufficientCreditsError(-change.quantity, balance);
  }
  await repository.insertEntry(trx, { ...change, reference: change.reference ?? null });
  const balance = toCreditBalance(moved);
  await publishToUser(trx, change.userId, 'CreditBalanceEvent', balance);
  return balance;
};

/** Pays for a piece of work: call it in the transaction that records the work. */
export const chargeCredits = (
  trx: Executor,
  charge: { userId: number; type: TCreditType; amount: number; reference?: string | null },
) => changeCredits(trx, { ...charge, quantity: -charge.amount });

/** Gives back what failed work was charged, under the same type, so `used` drops again. */
export const refundCredits = (
  trx: Executor,
  refund: { userId: number; type: TCreditType; amount: number; reference?: string | null },
) => changeCredits(trx, { ...refund, quantity: refund.amount });

/**
 * Takes up to `amount` away without failing when the balance is smaller (a plan's
 * monthly credits ending, an operator correcting): the balance stops at zero.
 */
export const removeCredits = async (
  trx: Executor,
  removal: { userId: number; type: TCreditType; amount: number; reference?: string | null },
): Promise<TCreditBalance> => {
  // Locked until the transaction ends, so a charge cannot shrink the balance between
  // reading it and taking it (which would turn this removal into an insufficient-credits error).
  const { balance, used } = await repository.findBalance(trx, removal.userId, { forUpdate: true });
  const quantity = -Math.min(balance, removal.amount);
  if (quantity === 0) return toCreditBalance({ balance, used });
  return changeCredits(trx, { ...removal, quantity });
};

export const getBalance = async (db: Executor, userId: number): Promise<TCreditBalance> =>
  toCreditBalance(await repository.findBalance(db, userId));

/**
 * Dates filter in the user's time zone (read in the same query): a bare day covers the
 * whole day; a time is exact. `last_date` is inclusive either way.
 */
export const listCreditLog = async (platform: TPlatform, userId: number, query: TCreditLogQuery) => {
  const timeZone = sql<string>`(select time_zone from users where id = ${userId})`;
  let rows = repository.selectEntries(platform.db, userId);
  if (query.type) rows = rows.where('type', '=', query.type);
  if (query.first_date) {
    rows = rows.where('created_at', '>=', sql<Date>`(${query.first_date}::timestamp at time zone ${timeZone})`);
  }
  if (query.last_date) {
    rows =
      query.last_date.length === 10
        ? rows.where('created_at', '<', sql<Date>`(${query.last_date}::date + 1)::timestamp at time zone ${timeZone}`)
        : rows.where('created_at', '<=', sql<Date>`(${query.last_date}::timestamp at time zone ${timeZone})`);
  }
  const page = await paginate(rows, query, {
    sortColumns: { created_at: 'created_at', type: 'type', quantity: 'quantity' },
    searchColumns: ['type', 'reference'],
    tieBreaker: 'id',
  });
  return {
    data: page.data.map((row) => ({ ...row, type: row.type as TCreditType, created_at: row.created_at.toISOString() })),
    meta: page.meta,
  };
};

/** For billing: whether a Stripe object already moved credits of this type (its webhook and its answer never both add them). */
export const hasCreditEntry = repository.hasCreditEntry;
