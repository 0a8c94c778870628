import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decryptSecret, encryptSecret, maskSecret } from './encryption';

const key = randomBytes(32);

describe('secrets at rest', () => {
  it('round-trips, with a fresh IV each time and no plaintext in the stored bytes', () => {
    const first = encryptSecret(key, 'key-0123456789abcdef', 'sending_accounts:1:api_key');
    const second = encryptSecret(key, 'key-0123456789abcdef', 'sending_accounts:1:api_key');
    expect(first.equals(second)).toBe(false);
    expect(first.toString('latin1')).not.toContain('0123456789');
    expect(decryptSecret(key, first, 'sending_accounts:1:api_key')).toBe('key-0123456789abcdef');
  });

  it('refuses another row’s context, another key, and a flipped bit', () => {
    const sealed = encryptSecret(key, 'hunter2', 'sending_accounts:1:password');
    expect(() => decryptSecret(key, sealed, 'sending_accounts:2:password')).toThrow();
    expect(() => decryptSecret(randomBytes(32), sealed, 'sending_accounts:1:password')).toThrow();
    const flipped = Buffer.from(sealed);
    flipped[flipped.length - 1]! ^= 1;
    expect(() => decryptSecret(key, flipped, 'sending_accounts:1:password')).toThrow();
  });

  it('masks all but the last six characters', () => {
    expect(maskSecret('key-abcdef123456')).toBe('••••••••••123456');
    expect(maskSecret('abc')).toBe('•••');
  });
});
