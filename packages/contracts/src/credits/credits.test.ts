import { describe, expect, it } from 'vitest';
import { usableCredit } from './credits';

describe('usable credit', () => {
  it('is total − used, as the spec counts it, and never below zero', () => {
    expect(usableCredit({ totalCredit: 1000, usedCredit: 40 })).toBe(960);
    expect(usableCredit({ totalCredit: 300, usedCredit: 0 })).toBe(300);
    expect(usableCredit({ totalCredit: 10, usedCredit: 10 })).toBe(0);
    expect(usableCredit({ totalCredit: 5, usedCredit: 8 })).toBe(0);
  });
});
