import { describe, expect, it } from 'vitest';
import { axisTicks } from './chartAxis';

describe('axisTicks', () => {
  it('gives whole, distinct ticks for small counts (a largest count of 1 read "1, 1, 0")', () => {
    expect(axisTicks(0)).toEqual({ top: 1, ticks: [0, 1] });
    expect(axisTicks(1)).toEqual({ top: 1, ticks: [0, 1] });
    expect(axisTicks(3)).toEqual({ top: 3, ticks: [0, 1, 2, 3] });
    expect(axisTicks(7)).toEqual({ top: 8, ticks: [0, 2, 4, 6, 8] });
  });

  it('rounds large counts to a round step, reaching at least the largest value in at most four steps', () => {
    expect(axisTicks(1234)).toEqual({ top: 1500, ticks: [0, 500, 1000, 1500] });
    expect(axisTicks(20_000)).toEqual({ top: 20_000, ticks: [0, 5000, 10_000, 15_000, 20_000] });
    for (const largest of [2, 5, 9, 11, 99, 101, 555, 9_999, 123_456]) {
      const { top, ticks } = axisTicks(largest);
      expect(top).toBeGreaterThanOrEqual(largest);
      expect(ticks.length).toBeLessThanOrEqual(5);
      expect(new Set(ticks).size).toBe(ticks.length);
      expect(ticks.every(Number.isInteger)).toBe(true);
    }
  });
});
