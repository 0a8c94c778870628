import { hkdfSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export type TSecrets = {
  /** Signs CSRF tokens. */
  csrfKey: Buffer;
  /** AES-256-GCM key for third-party credentials at rest (sending accounts issue). */
  encryptionKey: Buffer;
  /** Signs public ids (tracking, unsubscribe links). */
  signingKey: Buffer;
  /** Signs captcha challenges, so a solution can only answer one we issued. */
  captchaKey: Buffer;
};

const derive = (master: Buffer, purpose: string): Buffer =>
  Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), `sendwell:${purpose}`, 32));

/**
 * The master secret comes from SECRET_KEY; without it, one is generated into the data
 * directory on first start and reused after. Processes on several machines must share
 * SECRET_KEY, or sessions signed by one are refused by another and stored credentials
 * cannot be read.
 */
export const loadSecrets = (secretKey: string | undefined, dataDir: string): TSecrets => {
  let master: Buffer;
  if (secretKey) {
    master = Buffer.from(secretKey, 'utf8');
  } else {
    const file = path.join(dataDir, 'secret.key');
    fs.mkdirSync(dataDir, { recursive: true });
    if (!fs.existsSync(file)) {
      // 'wx' fails if another process created it meanwhile; then read theirs.
      try {
        fs.writeFileSync(file, randomBytes(48).toString('base64url'), { mode: 0o600, flag: 'wx' });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
    master = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'utf8');
  }
  return {
    csrfKey: derive(master, 'csrf'),
    encryptionKey: derive(master, 'encryption'),
    signingKey: derive(master, 'signing'),
    captchaKey: derive(master, 'captcha'),
  };
};
