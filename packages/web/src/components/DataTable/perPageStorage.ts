import { DEFAULT_PER_PAGE, PAGE_SIZES, PER_PAGE_STORAGE_KEY } from '@sendwell/contracts';

export const isPageSize = (value: number): boolean => (PAGE_SIZES as readonly number[]).includes(value);

/** The size the user last chose in any table, if it is one the tables offer. */
export const readStoredPerPage = (): number | null => {
  try {
    const stored = Number(window.localStorage.getItem(PER_PAGE_STORAGE_KEY));
    return isPageSize(stored) ? stored : null;
  } catch {
    // Storage can be disabled (privacy mode); the table still works with its default.
    return null;
  }
};

export const storePerPage = (size: number): void => {
  try {
    window.localStorage.setItem(PER_PAGE_STORAGE_KEY, String(size));
  } catch {
    // Not remembered across visits, which is all that is lost.
  }
};

export const initialPerPage = (defaultPerPage: number = DEFAULT_PER_PAGE): number =>
  readStoredPerPage() ?? defaultPerPage;
