import { z } from 'zod';
import { defineRoute, ZIdParams } from '../http/routes';

/** Images for emails (issue 46 §4): what an upload may be, and what the library answers. */
export const MEDIA_LIMITS = {
  /** The largest file an upload takes. */
  maxBytes: 5 * 1024 * 1024,
  /** Wider images are scaled down to this (twice a 600-pixel email, for sharp screens). */
  maxWidth: 1200,
  types: ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const,
} as const;

export const MEDIA_MESSAGES = {
  tooLarge: 'An image may be at most 5 MB.',
  svg: 'SVG images are not accepted: they can carry scripts. Export the picture as PNG and upload that.',
  type: 'Only PNG, JPEG, GIF and WebP images can be uploaded.',
  unreadable: 'This image could not be read: the file may be damaged. Save it again and retry.',
  tooManyPixels: 'This image has too many pixels to be used in an email. Make it smaller and retry.',
  quota: (quotaMb: number) =>
    `Your image library is full (${quotaMb} MB). Delete images you no longer use from the library, then upload again.`,
  missing: 'Choose an image to upload (field "image").',
  uploaded: 'The image is uploaded.',
  deleted: 'The image is deleted from your library. Emails already sent that show it will show it no more.',
} as const;

export const ZMedia = z.object({
  id: z.number().int(),
  /** `PUBLIC_URL/media/<content hash>`: where emails load it from. */
  url: z.string(),
  name: z.string(),
  content_type: z.enum(MEDIA_LIMITS.types),
  width: z.number().int(),
  height: z.number().int(),
  /** Bytes as stored (after re-encoding). */
  size: z.number().int(),
  created_at: z.string(),
});
export type TMedia = z.infer<typeof ZMedia>;

export const ZMediaLibrary = z.object({
  data: z.array(ZMedia),
  /** Bytes the user's images take, and the most they may. */
  used: z.number().int(),
  quota: z.number().int(),
});
export type TMediaLibrary = z.infer<typeof ZMediaLibrary>;

/** The media library's calls (paths of ours) and the spec's drip-editor upload. */
export const mediaApi = {
  /** Multipart, field `image`. */
  upload: defineRoute({
    method: 'POST',
    path: '/media',
    response: z.object({ status: z.literal(true), message: z.string(), data: ZMedia }),
  }),
  list: defineRoute({ method: 'GET', path: '/media', response: ZMediaLibrary }),
  delete: defineRoute({
    method: 'DELETE',
    path: '/media/:id',
    params: ZIdParams,
    response: z.object({ status: z.literal(true), message: z.string() }),
  }),
  /** Spec (drip): `POST /campaigns/add-temporary-image` (form: image) → status, url, message. */
  temporaryImage: defineRoute({
    method: 'POST',
    path: '/campaigns/add-temporary-image',
    response: z.object({ status: z.literal(true), url: z.string(), message: z.string() }),
  }),
};
