import { describe, expect, it } from 'vitest';
import { counted, pluralOf } from './plural';

describe('counts in words', () => {
  it('takes the singular for one only, as the language rule says', () => {
    expect(counted(1, 'send')).toBe('1 send');
    expect(counted(0, 'send')).toBe('0 sends');
    expect(counted(2, 'recipient')).toBe('2 recipients');
    expect(counted(1.5, 'credit')).toBe('1.5 credits');
    expect(counted(12_345, 'message')).toBe('12,345 messages');
  });

  it('takes an irregular plural', () => {
    const address = { one: 'address', other: 'addresses' };
    expect(counted(1, address)).toBe('1 address');
    expect(counted(3, address)).toBe('3 addresses');
    expect(pluralOf(1, { one: 'generic address', other: 'generic addresses' })).toBe('generic address');
  });
});
