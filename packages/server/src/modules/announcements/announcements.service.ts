import type { TAnnouncement, TAnnouncementInput } from '@sendwell/contracts';
import type { Selectable } from 'kysely';
import { sql } from 'kysely';
import type { TPlatform } from '../../platform/context';
import type { AnnouncementsTable } from '../../platform/db-schema';
import { notFound } from '../../platform/errors';

/**
 * Operator-written announcements (table `announcements`): the latest published one opens
 * as a modal for every signed-in user (spec §4: until dismissed, and again a week after).
 */

const toAnnouncement = (row: Selectable<AnnouncementsTable>): TAnnouncement => ({
  id: row.id,
  title: row.title,
  body: row.body,
  published_at: row.published_at?.toISOString() ?? null,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});

export const currentAnnouncement = async (platform: TPlatform) => {
  const row = await platform.db
    .selectFrom('announcements')
    .selectAll()
    .where('published_at', 'is not', null)
    .orderBy('published_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? toAnnouncement(row) : null;
};

export const listAnnouncements = async (platform: TPlatform) =>
  (await platform.db.selectFrom('announcements').selectAll().orderBy('created_at', 'desc').limit(200).execute()).map(
    toAnnouncement,
  );

export const createAnnouncement = async (platform: TPlatform, operatorId: number, input: TAnnouncementInput) =>
  toAnnouncement(
    await platform.db
      .insertInto('announcements')
      .values({ title: input.title, body: input.body, created_by: operatorId })
      .returningAll()
      .executeTakeFirstOrThrow(),
  );

export const updateAnnouncement = async (platform: TPlatform, id: number, input: TAnnouncementInput) => {
  const row = await platform.db
    .updateTable('announcements')
    .set({ title: input.title, body: input.body, updated_at: new Date() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw notFound('This announcement does not exist.');
  return toAnnouncement(row);
};

/** Publishing stamps the time (a republished one shows again to everyone); unpublishing clears it. */
export const publishAnnouncement = async (platform: TPlatform, id: number, published: boolean) => {
  const row = await platform.db
    .updateTable('announcements')
    .set({ published_at: published ? sql`now()` : null, updated_at: new Date() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw notFound('This announcement does not exist.');
  return toAnnouncement(row);
};
