import type { TPlatform } from '../../platform/context';
import { decryptSecret, encryptSecret } from '../../platform/encryption';

export type TSecretColumn = 'api_key' | 'password' | 'oauth_refresh_token' | 'oauth_access_token' | 'webhook_key';

/** Secrets are bound to their row and column: a ciphertext moved elsewhere does not open. */
const secretContext = (accountId: number, column: TSecretColumn) => `sending_accounts:${accountId}:${column}`;

export const sealSecret = (platform: TPlatform, accountId: number, column: TSecretColumn, value: string) =>
  encryptSecret(platform.secrets.encryptionKey, value, secretContext(accountId, column));

export const openSecret = (platform: TPlatform, accountId: number, column: TSecretColumn, value: Buffer | null) =>
  value ? decryptSecret(platform.secrets.encryptionKey, value, secretContext(accountId, column)) : null;
