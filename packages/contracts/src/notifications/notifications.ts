import { z } from 'zod';
import { pagedResponse, pageQuery } from '../paging/paging';

export const ZNotification = z.object({
  id: z.number().int(),
  title: z.string(),
  body: z.string(),
  link: z.string().nullable(),
  read_at: z.string().nullable(),
  created_at: z.string(),
});
export type TNotification = z.infer<typeof ZNotification>;

export const ZNotificationPageQuery = pageQuery({
  columns: ['created_at', 'title'],
  defaultColumn: 'created_at',
  defaultOrder: 'desc',
}).extend({
  unread: z.enum(['0', '1']).optional(),
});
export type TNotificationPageQuery = z.infer<typeof ZNotificationPageQuery>;

export const ZNotificationPage = pagedResponse(ZNotification).extend({ unread: z.number().int() });
export type TNotificationPage = z.infer<typeof ZNotificationPage>;

export const ZMarkNotificationsRead = z.object({
  ids: z.array(z.number().int().positive()).max(500).optional(),
});
