import { pageMeta, type TPaged, type TSortOrder } from '@sendwell/contracts';
import { type Expression, isExpression, type RawBuilder, type SelectQueryBuilder, sql } from 'kysely';
import type { Database } from './db-schema';
import { ValidationError } from './errors';

export type TPageParams = {
  page: number;
  per_page: number;
  column: string;
  order: TSortOrder;
  search?: string | undefined;
};

type TPageOptions = {
  /** Sort column as the API names it → SQL column. The allow-list: others are refused. */
  sortColumns: Record<string, string | RawBuilder<unknown>>;
  /** SQL columns matched case-insensitively by `search`. */
  searchColumns: readonly string[];
  /**
   * A narrower condition every match also meets (rows an index found for the pattern), so
   * a search need not test every row; the columns' own test still decides.
   */
  searchWithin?: ((pattern: string) => RawBuilder<boolean>) | undefined;
  /** Appended to every sort so equal values keep a stable order across pages. */
  tieBreaker: string;
  /**
   * The total from a maintained counter, when the query is not narrowed by a search or
   * filter; then no row is counted at all. Best as an SQL expression (a scalar subquery on
   * the counter's row): it is selected with the page, one round trip for both (B7: each
   * round trip to PostgreSQL costs more CPU than the rest of a request). A promise is
   * awaited alongside the page.
   */
  knownTotal?: number | Promise<number> | Expression<unknown> | undefined;
};

const escapeLike = (value: string) => value.replace(/[\\%_]/g, (character) => `\\${character}`);

/**
 * The one helper behind every table: applies search, sort and OFFSET paging to a query
 * already scoped to the user, and answers `{data, meta}`. OFFSET is right for screens
 * (DESIGN §3); workers walking recipients use keyset queries instead.
 */
export const paginate = async <TB extends keyof Database, O>(
  query: SelectQueryBuilder<Database, TB, O>,
  params: TPageParams,
  options: TPageOptions,
): Promise<TPaged<O>> => {
  const sortColumn = options.sortColumns[params.column];
  if (!sortColumn) throw new ValidationError({ column: [`You cannot sort by ${params.column}.`] });

  let filtered = query;
  const search = params.search?.trim();
  const knownTotal = search ? undefined : options.knownTotal;
  if (search && options.searchColumns.length > 0) {
    const pattern = `%${escapeLike(search)}%`;
    filtered = filtered.where((eb) =>
      eb.or(options.searchColumns.map((column) => eb(sql.ref(column), 'ilike', pattern))),
    );
    if (options.searchWithin) filtered = filtered.where(options.searchWithin(pattern));
  }

  const direction = params.order === 'asc' ? sql`asc` : sql`desc`;
  const pageQuery = filtered
    .orderBy(sql`${typeof sortColumn === 'string' ? sql.ref(sortColumn) : sortColumn} ${direction}`)
    .orderBy(sql`${sql.ref(options.tieBreaker)} ${direction}`)
    .limit(params.per_page)
    .offset((params.page - 1) * params.per_page);
  if (knownTotal !== undefined && !isExpression(knownTotal)) {
    const [data, total] = await Promise.all([pageQuery.execute(), knownTotal]);
    return { data: data as O[], meta: pageMeta(total, params.page, params.per_page) };
  }
  // Otherwise the total rides along with the page (one round trip, not two): the counter's
  // value, or a count of the matches; only a page past the end, which has no rows to carry
  // it, needs its own count.
  const totalColumn = knownTotal ?? sql<string>`count(*) over ()`;
  const rows = (await pageQuery.select(sql`${totalColumn}`.as('__total')).execute()) as (O & {
    __total: string | number;
  })[];

  let total: number;
  if (rows.length > 0) {
    total = Number(rows[0]!.__total);
  } else if (params.page === 1) {
    total = 0;
  } else {
    const countRow = await filtered.clearSelect().select(sql<string>`count(*)`.as('total')).executeTakeFirst();
    total = Number((countRow as { total?: string } | undefined)?.total ?? 0);
  }
  const data = rows.map(({ __total: _total, ...row }) => row as O);
  return { data, meta: pageMeta(total, params.page, params.per_page) };
};

/**
 * Rows read slice by slice in id order, each slice after the last id of the one before
 * (keyset, not OFFSET): an export or a sync of any length holds one slice at a time, and
 * costs the same per slice however far it has come. `readAfter` reads the slice after an id.
 */
export async function* slicesAfter<R extends { id: number }>(readAfter: (afterId: number) => Promise<R[]>) {
  let after = 0;
  for (;;) {
    const rows = await readAfter(after);
    if (rows.length === 0) return;
    after = rows.at(-1)!.id;
    yield rows;
  }
}
