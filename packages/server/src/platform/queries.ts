import { type Generated, type SelectQueryBuilder, sql } from 'kysely';
import type { Executor } from './db';
import type { Database } from './db-schema';

/**
 * Query pieces every repository would otherwise write again. Each takes a query its module
 * built (so the table it names stays in the module's own code, where the module-boundaries
 * test reads it) or names a table of the caller's module.
 */

/** How many rows the query finds; the query selects nothing of its own. */
export const countRows = async <TB extends keyof Database, O>(query: SelectQueryBuilder<Database, TB, O>) =>
  (await query.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow()).count;

/** Whether the query finds a row at all (it reads no further than the first). */
export const hasRows = async <TB extends keyof Database, O>(query: SelectQueryBuilder<Database, TB, O>) =>
  (await query.select(sql<number>`1`.as('found')).limit(1).executeTakeFirst()) !== undefined;

/**
 * The row is about the address, in any case: `lower(email)`, what the tables' address
 * indexes hold, so the comparison is one probe of them. For a query over one table with an
 * `email` column.
 */
export const isAddress = (email: string) => sql<boolean>`lower(email) = ${email.toLowerCase()}`;

/** The tables whose rows have a numeric `id`. */
type TTableWithId = {
  [T in keyof Database]: Database[T] extends { id: Generated<number> } ? T : never;
}[keyof Database];

/** Deletes the rows a query of the caller found, by their ids (none: no statement); answers how many. */
export const deleteRows = async (trx: Executor, table: TTableWithId, rows: readonly { id: number }[]) => {
  if (rows.length === 0) return 0;
  await trx
    .deleteFrom(table)
    .where(
      'id',
      'in',
      rows.map((row) => row.id),
    )
    .execute();
  return rows.length;
};
