import { sql } from 'kysely';
import type { Executor } from '../../platform/db';

const ENTRY = [
  'media.id',
  'media.name',
  'media.width',
  'media.height',
  'media.size',
  'media.hash',
  'media.created_at',
] as const;

/** One user's library, newest first. */
export const findMediaOfUser = (db: Executor, userId: number) =>
  db
    .selectFrom('media')
    .innerJoin('media_files', 'media_files.hash', 'media.hash')
    .select([...ENTRY, 'media_files.content_type'])
    .where('media.user_id', '=', userId)
    .orderBy('media.id', 'desc')
    .limit(1000)
    .execute();

/** Bytes the user's library takes (what the quota counts). */
export const usedBytes = async (db: Executor, userId: number) =>
  Number(
    (
      await db
        .selectFrom('media')
        .select(sql<string>`coalesce(sum(size), 0)`.as('used'))
        .where('user_id', '=', userId)
        .executeTakeFirstOrThrow()
    ).used,
  );

/**
 * Uploads of one user take turns from here to their commit, so two at once cannot both fit
 * the quota's last megabytes (a transaction-scoped advisory lock, keyed by the user).
 */
export const lockUserMedia = (db: Executor, userId: number) =>
  sql`select pg_advisory_xact_lock(${46}, ${userId}::int)`.execute(db);

/** The file, stored once whoever uploads it; an existing one is left as it is. */
export const storeFile = (db: Executor, file: { hash: string; contentType: string; bytes: Buffer }) =>
  db
    .insertInto('media_files')
    .values({ hash: file.hash, content_type: file.contentType, bytes: file.bytes, size: file.bytes.length })
    .onConflict((conflict) => conflict.column('hash').doNothing())
    .execute();

/** The user's entry for a file: a new one, or the one they already had (the same picture twice). */
export const upsertEntry = (
  db: Executor,
  entry: { userId: number; hash: string; name: string; width: number; height: number; size: number },
) =>
  db
    .insertInto('media')
    .values({
      user_id: entry.userId,
      hash: entry.hash,
      name: entry.name,
      width: entry.width,
      height: entry.height,
      size: entry.size,
    })
    .onConflict((conflict) => conflict.columns(['user_id', 'hash']).doUpdateSet({ updated_at: new Date() }))
    .returning(['id'])
    .executeTakeFirstOrThrow();

export const findEntry = (db: Executor, userId: number, id: number) =>
  db
    .selectFrom('media')
    .innerJoin('media_files', 'media_files.hash', 'media.hash')
    .select([...ENTRY, 'media_files.content_type'])
    .where('media.user_id', '=', userId)
    .where('media.id', '=', id)
    .executeTakeFirst();

export const deleteEntry = (db: Executor, userId: number, id: number) =>
  db.deleteFrom('media').where('user_id', '=', userId).where('id', '=', id).returning(['hash']).executeTakeFirst();

/**
 * A file no library holds any more, deleted (after a user deleted their last entry of it). An
 * upload of the same picture that is committing at this moment holds its row: the statement
 * then deletes nothing.
 */
export const deleteFileIfUnused = (db: Executor, hash: string) =>
  db
    .deleteFrom('media_files')
    .where('hash', '=', hash)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('media').select(sql`1`.as('one')).whereRef('media.hash', '=', 'media_files.hash'))),
    )
    .execute();

/** Files left behind by users deleted since (their entries went with them), older than an hour. */
export const deleteOrphanFiles = async (db: Executor) =>
  Number(
    (
      await db
        .deleteFrom('media_files')
        .where('created_at', '<', sql<Date>`now() - interval '1 hour'`)
        .where(({ not, exists, selectFrom }) =>
          not(exists(selectFrom('media').select(sql`1`.as('one')).whereRef('media.hash', '=', 'media_files.hash'))),
        )
        .executeTakeFirst()
    ).numDeletedRows,
  );

/** A file to serve: only while some library holds it. */
export const findServedFile = (db: Executor, hash: string) =>
  db
    .selectFrom('media_files')
    .select(['content_type', 'bytes'])
    .where('hash', '=', hash)
    .where(({ exists, selectFrom }) =>
      exists(selectFrom('media').select(sql`1`.as('one')).whereRef('media.hash', '=', 'media_files.hash')),
    )
    .executeTakeFirst();
