import { CREDIT_TYPES } from '@sendwell/contracts';
import { describe, expect, it } from 'vitest';
import { creditTypeLabel, formatCreditChange, formatCredits } from './credits.format';

describe('credit formatting', () => {
  it('names every credit type the way the log shows it', () => {
    expect(Object.fromEntries(CREDIT_TYPES.map((type) => [type, creditTypeLabel(type)]))).toEqual({
      verify: 'Verification',
      'spam-check': 'Spam test',
      sale: 'Purchase',
      trial: 'Trial credits',
      'mon-balance-add': 'Monthly credits added',
      'mon-balance-remove': 'Monthly credits removed',
      'one-time-credit': 'One-time credit',
    });
  });

  it('writes balances with thousands separators', () => {
    expect(formatCredits(1250)).toBe('1,250');
    expect(formatCredits(0)).toBe('0');
  });

  it('signs every change so its direction reads without colour', () => {
    expect(formatCreditChange(1500)).toBe('+1,500');
    expect(formatCreditChange(-3)).toBe('-3');
    expect(formatCreditChange(0)).toBe('0');
  });
});
