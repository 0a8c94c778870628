import { sql } from 'kysely';
import type { Executor } from '../../platform/db';
import { countRows } from '../../platform/queries';

const COLUMNS = ['id', 'name', 'key_prefix', 'scopes', 'created_at', 'last_used_at', 'revoked_at'] as const;

/** The user's keys, newest first, revoked ones included (they stay listed, marked). */
export const listKeys = (db: Executor, userId: number) =>
  db.selectFrom('api_keys').select(COLUMNS).where('user_id', '=', userId).orderBy('id', 'desc').execute();

export type TApiKeyRow = Awaited<ReturnType<typeof listKeys>>[number];

export const countActiveKeys = (db: Executor, userId: number) =>
  countRows(db.selectFrom('api_keys').where('user_id', '=', userId).where('revoked_at', 'is', null));

export const insertKey = (
  db: Executor,
  row: { userId: number; name: string; keyHash: Buffer; keyPrefix: string; scopes: string[] },
) =>
  db
    .insertInto('api_keys')
    .values({
      user_id: row.userId,
      name: row.name,
      key_hash: row.keyHash,
      key_prefix: row.keyPrefix,
      scopes: row.scopes,
    })
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();

/** Revokes one of the user's keys; answers whether it was theirs and active. */
export const revokeKey = async (db: Executor, userId: number, keyId: number) =>
  (
    await db
      .updateTable('api_keys')
      .set({ revoked_at: new Date(), updated_at: new Date() })
      .where('user_id', '=', userId)
      .where('id', '=', keyId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst()
  ).numUpdatedRows > 0n;

export const findKeyOfUser = (db: Executor, userId: number, keyId: number) =>
  db.selectFrom('api_keys').select(COLUMNS).where('user_id', '=', userId).where('id', '=', keyId).executeTakeFirst();

/** The active key with this hash: one probe of its unique index. */
export const findActiveKey = (db: Executor, keyHash: Buffer) =>
  db
    .selectFrom('api_keys')
    .select(['id', 'user_id', 'scopes', 'last_used_at'])
    .where('key_hash', '=', keyHash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();

/** Records a use, at most once a minute per key (a write per request would cost more than the request). */
export const touchKey = (db: Executor, keyId: number) =>
  sql`update api_keys set last_used_at = now()
       where id = ${keyId} and (last_used_at is null or last_used_at < now() - interval '1 minute')`.execute(db);
