import { MEDIA_LIMITS, MEDIA_MESSAGES, type TMedia, type TMediaLibrary } from '@sendwell/contracts';
import type { TPlatform } from '../../platform/context';
import { HttpError, notFound } from '../../platform/errors';
import { publicUrl } from '../../platform/public-url';
import { processImage } from './images';
import {
  deleteEntry,
  deleteFileIfUnused,
  deleteOrphanFiles,
  findEntry,
  findMediaOfUser,
  lockUserMedia,
  storeFile,
  upsertEntry,
  usedBytes,
} from './media.repository';

/** One upload's file as the route read it. */
export type TUploadedImage = { bytes: Buffer; filename: string };

/** Where emails load an image from: `PUBLIC_URL/media/<content hash>` (the same on every process). */
export const mediaUrl = (platform: Pick<TPlatform, 'config'>, hash: string) => `${publicUrl(platform)}/media/${hash}`;

type TEntryRow = Awaited<ReturnType<typeof findMediaOfUser>>[number];
const toMedia = (platform: TPlatform, row: TEntryRow): TMedia => ({
  id: row.id,
  url: mediaUrl(platform, row.hash),
  name: row.name,
  content_type: row.content_type as TMedia['content_type'],
  width: row.width,
  height: row.height,
  size: row.size,
  created_at: row.created_at.toISOString(),
});

/** A file name as the library shows it: its last path part, without control characters, at most 200 characters. */
const cleanName = (filename: string) =>
  (filename.split(/[\\/]/).pop() ?? '')
    // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point.
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim()
    .slice(0, 200) || 'image';

/**
 * An upload into the user's library: re-encoded (`images.ts`), stored once by content hash,
 * counted against the user's quota. The same picture again is the entry they already have.
 */
export const uploadImage = async (platform: TPlatform, userId: number, upload: TUploadedImage): Promise<TMedia> => {
  if (upload.bytes.length > MEDIA_LIMITS.maxBytes)
    throw new HttpError(413, MEDIA_MESSAGES.tooLarge, 'UPLOAD_TOO_LARGE');
  const image = await processImage(upload.bytes);
  const quota = platform.config.mediaQuotaBytes;
  const id = await platform.db.transaction().execute(async (trx) => {
    await lockUserMedia(trx, userId);
    const existing = await trx
      .selectFrom('media')
      .select('id')
      .where('user_id', '=', userId)
      .where('hash', '=', image.hash)
      .executeTakeFirst();
    if (!existing && (await usedBytes(trx, userId)) + image.bytes.length > quota) {
      throw new HttpError(413, MEDIA_MESSAGES.quota(Math.round(quota / 1024 / 1024)), 'MEDIA_QUOTA');
    }
    await storeFile(trx, { hash: image.hash, contentType: image.type, bytes: image.bytes });
    const entry = await upsertEntry(trx, {
      userId,
      hash: image.hash,
      name: cleanName(upload.filename),
      width: image.width,
      height: image.height,
      size: image.bytes.length,
    });
    return entry.id;
  });
  return toMedia(platform, (await findEntry(platform.db, userId, id))!);
};

export const mediaLibrary = async (platform: TPlatform, userId: number): Promise<TMediaLibrary> => {
  const [rows, used] = await Promise.all([findMediaOfUser(platform.db, userId), usedBytes(platform.db, userId)]);
  return { data: rows.map((row) => toMedia(platform, row)), used, quota: platform.config.mediaQuotaBytes };
};

/** Takes an image out of the user's library; its file goes when no library holds it. */
export const deleteImage = async (platform: TPlatform, userId: number, id: number) =>
  platform.db.transaction().execute(async (trx) => {
    const deleted = await deleteEntry(trx, userId, id);
    if (!deleted) throw notFound('This image is not in your library.');
    await deleteFileIfUnused(trx, deleted.hash);
  });

/** The media module's part of the hourly cleanup (R30): files of deleted users. */
export const cleanUpMedia = async (platform: TPlatform) => ({ media_files: await deleteOrphanFiles(platform.db) });
