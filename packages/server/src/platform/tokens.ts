import crypto, { createHash, createHmac, randomBytes } from 'node:crypto';

/** A random token for cookies and links: 32 bytes, URL-safe. */
export const randomToken = (): string => randomBytes(32).toString('base64url');

/** Tokens are stored only as their SHA-256, so the table alone opens nothing. */
export const hashToken = (token: string): Buffer => createHash('sha256').update(token).digest();

export const hmac = (key: Buffer, value: string): string => createHmac('sha256', key).update(value).digest('base64url');

/**
 * Compares secrets in constant time (R9). Through the module object, so a test can watch
 * the comparison with a spy (mailgun-webhooks.test.ts) whatever loaded this module first.
 */
export const safeEqual = (a: string, b: string): boolean => {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && crypto.timingSafeEqual(left, right);
};
