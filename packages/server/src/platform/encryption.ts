import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Third-party credentials at rest (API keys, SMTP passwords, OAuth tokens): AES-256-GCM,
 * a fresh IV each time, and `context` (the table, row id and column) as associated data,
 * so a ciphertext copied into another row or column no longer opens. Stored as one
 * buffer: version byte, IV, tag, ciphertext.
 */
export const encryptSecret = (key: Buffer, plaintext: string, context: string): Buffer => {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), ciphertext]);
};

export const decryptSecret = (key: Buffer, sealed: Buffer, context: string): string => {
  if (sealed[0] !== VERSION) throw new Error('Unknown secret format.');
  const iv = sealed.subarray(1, 1 + IV_BYTES);
  const tag = sealed.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(sealed.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
};

/** What a form may show of a stored key: its last six characters (spec: API key masking). */
export const maskSecret = (secret: string): string =>
  secret.length <= 6 ? '•'.repeat(secret.length) : `${'•'.repeat(Math.min(secret.length - 6, 26))}${secret.slice(-6)}`;
