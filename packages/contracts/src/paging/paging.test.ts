import { describe, expect, it } from 'vitest';
import { isSearchReady, pageMeta, pageQuery, pageWindow } from './paging';

describe('pageWindow', () => {
  it('shows four pages either side of the current page', () => {
    expect(pageWindow(10, 30)).toEqual([6, 7, 8, 9, 10, 11, 12, 13, 14]);
  });
  it('clamps the window at the first and last page', () => {
    expect(pageWindow(1, 3)).toEqual([1, 2, 3]);
    expect(pageWindow(2, 20)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(pageWindow(20, 20)).toEqual([16, 17, 18, 19, 20]);
  });
});

describe('pageMeta', () => {
  it('counts from and to on a middle page', () => {
    expect(pageMeta(95, 2, 20)).toEqual({ current_page: 2, last_page: 5, from: 21, to: 40, total: 95, per_page: 20 });
  });
  it('stops `to` at the total on the last page', () => {
    expect(pageMeta(95, 5, 20)).toMatchObject({ from: 81, to: 95 });
  });
  it('gives null bounds and one page when empty', () => {
    expect(pageMeta(0, 1, 20)).toEqual({ current_page: 1, last_page: 1, from: null, to: null, total: 0, per_page: 20 });
  });
  it('gives null bounds past the last page', () => {
    expect(pageMeta(10, 3, 5)).toMatchObject({ from: null, to: null, last_page: 2 });
  });
});

describe('pageQuery', () => {
  const query = pageQuery({ columns: ['created_at', 'email'], defaultColumn: 'email', defaultOrder: 'asc' });
  it('fills defaults', () => {
    expect(query.parse({})).toEqual({ page: 1, per_page: 20, column: 'email', order: 'asc' });
  });
  it('refuses a sort column it does not know', () => {
    const result = query.safeParse({ column: 'password_hash' });
    expect(result.success).toBe(false);
  });
  it('refuses a page size the tables do not offer', () => {
    expect(query.safeParse({ per_page: '7' }).success).toBe(false);
    expect(query.parse({ per_page: '100' }).per_page).toBe(100);
  });
});

describe('isSearchReady', () => {
  it('fires at three or more characters or when cleared', () => {
    expect(isSearchReady('')).toBe(true);
    expect(isSearchReady('ab')).toBe(false);
    expect(isSearchReady(' ab ')).toBe(false);
    expect(isSearchReady('abc')).toBe(true);
  });
});
