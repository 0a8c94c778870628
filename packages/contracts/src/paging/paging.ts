import { z } from 'zod';

/** Page sizes every table offers (spec §9); the chosen one is kept in localStorage under `per_page`. */
export const PAGE_SIZES = [5, 10, 15, 20, 50, 100] as const;
export const DEFAULT_PER_PAGE = 20;
export const PER_PAGE_STORAGE_KEY = 'per_page';
/** Numbered page links shown either side of the current page. */
export const PAGE_WINDOW_RADIUS = 4;
/** Table search fires at this many characters, or when the box is cleared. */
export const SEARCH_MIN_LENGTH = 3;
/**
 * Search debounce (spec §9 of each document): 600 ms on the sending document's tables (lists,
 * members, history, scheduled, suppression, verification, spam tests) and on the drip
 * document's campaign list; 300 ms on the drip document's other tables (campaign recipients,
 * the delivery dashboard's events, support tickets, the credit log).
 */
export const SEARCH_DEBOUNCE_MS = 600;
export const SEARCH_DEBOUNCE_SHORT_MS = 300;

export type TSortOrder = 'asc' | 'desc';

export const ZPageMeta = z.object({
  current_page: z.number().int(),
  last_page: z.number().int(),
  from: z.number().int().nullable(),
  to: z.number().int().nullable(),
  total: z.number().int(),
  per_page: z.number().int(),
});
export type TPageMeta = z.infer<typeof ZPageMeta>;

export const pagedResponse = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), meta: ZPageMeta });

export type TPaged<T> = { data: T[]; meta: TPageMeta };

/** The page sizes a table takes: the offered ones and its own default. */
export const pageSizesOf = (defaultPerPage: number = DEFAULT_PER_PAGE): number[] =>
  [...new Set([...PAGE_SIZES, defaultPerPage])].sort((a, b) => a - b);

type PageQueryOptions<C extends string> = {
  /** The columns a user may sort by; anything else is refused with a 422. */
  columns: readonly [C, ...C[]];
  defaultColumn: C;
  defaultOrder: TSortOrder;
  defaultPerPage?: number;
};

/**
 * The query every table sends: `?page&column&order&per_page&search`. Screens extend it
 * with their own filters (`.extend({type: …})`).
 */
export const pageQuery = <C extends string>(options: PageQueryOptions<C>) => {
  // The sizes every table offers, and the one this table starts with (the spec's members
  // list starts at 2, below the offered sizes): worked out once, not on every request.
  const sizes = pageSizesOf(options.defaultPerPage);
  return z.object({
    page: z.coerce.number().int().min(1).max(1_000_000).default(1),
    per_page: z.coerce
      .number()
      .int()
      .refine((size) => sizes.includes(size), { message: `per_page must be one of ${sizes.join(', ')}.` })
      .default(options.defaultPerPage ?? DEFAULT_PER_PAGE),
    column: z
      .enum(options.columns, { message: `column must be one of ${options.columns.join(', ')}.` })
      .default(options.defaultColumn),
    order: z.enum(['asc', 'desc'], { message: 'order must be asc or desc.' }).default(options.defaultOrder),
    search: z.string().trim().max(200).optional(),
  });
};

/** `from`, `to` and `last_page` the way the spec's tables show them. */
export const pageMeta = (total: number, page: number, perPage: number): TPageMeta => {
  const lastPage = Math.max(1, Math.ceil(total / perPage));
  const offset = (page - 1) * perPage;
  const isEmpty = total === 0 || offset >= total;
  return {
    current_page: page,
    last_page: lastPage,
    from: isEmpty ? null : offset + 1,
    to: isEmpty ? null : Math.min(offset + perPage, total),
    total,
    per_page: perPage,
  };
};

/**
 * The numbered pages to show: the current one and up to `radius` either side,
 * clamped to 1…lastPage.
 */
export const pageWindow = (current: number, lastPage: number, radius = PAGE_WINDOW_RADIUS): number[] => {
  const first = Math.max(1, current - radius);
  const last = Math.min(lastPage, current + radius);
  const pages: number[] = [];
  for (let page = first; page <= last; page++) pages.push(page);
  return pages;
};

/** Whether a search box value should be sent: at least 3 characters, or cleared. */
export const isSearchReady = (value: string): boolean => {
  const trimmed = value.trim();
  return trimmed.length === 0 || trimmed.length >= SEARCH_MIN_LENGTH;
};
