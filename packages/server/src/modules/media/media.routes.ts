import multipart from '@fastify/multipart';
import { MEDIA_LIMITS, MEDIA_MESSAGES, mediaApi } from '@sendwell/contracts';
import type { FastifyRequest } from 'fastify';
import { HttpError } from '../../platform/errors';
import { moduleRoutes, perUserLimit, routesFor, type TRoutesPlugin, userOf } from '../../platform/routes';
import { uploadParts } from '../../platform/uploads';
import { findServedFile } from './media.repository';
import { deleteImage, mediaLibrary, uploadImage } from './media.service';

/** The form around the file: boundaries and part headers. */
const MULTIPART_OVERHEAD = 64 * 1024;
const uploadLimit = perUserLimit('media-upload', 120);
const editLimit = perUserLimit('media-edit', 300);

/** The `image` file of a multipart form, read whole (at most MEDIA_LIMITS.maxBytes: the reader stops past it). */
const readImage = async (request: FastifyRequest) => {
  for await (const part of uploadParts(request, { tooLarge: MEDIA_MESSAGES.tooLarge })) {
    if (part.type !== 'file') continue;
    if (part.fieldname !== 'image') {
      part.file.resume();
      continue;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of part.file) chunks.push(chunk as Buffer);
    // The reader stops at the limit and marks the file cut: a cut image is never stored.
    if (part.file.truncated) throw new HttpError(413, MEDIA_MESSAGES.tooLarge, 'UPLOAD_TOO_LARGE');
    return { bytes: Buffer.concat(chunks), filename: part.filename };
  }
  throw new HttpError(422, MEDIA_MESSAGES.missing, 'MEDIA_MISSING');
};

/** The media library's calls and the spec's drip upload (`POST /campaigns/add-temporary-image`). */
export const mediaRoutes = moduleRoutes(['media'], async (serve, platform, app) => {
  await app.register(multipart, {
    limits: { fileSize: MEDIA_LIMITS.maxBytes, files: 1, fields: 5, fieldSize: 1024, parts: 8 },
  });
  const upload = { maxBytes: MEDIA_LIMITS.maxBytes + MULTIPART_OVERHEAD, tooLarge: MEDIA_MESSAGES.tooLarge };

  serve(mediaApi.upload, { config: uploadLimit, upload }, async (request) => ({
    status: true as const,
    message: MEDIA_MESSAGES.uploaded,
    data: await uploadImage(platform, userOf(request), await readImage(request)),
  }));

  serve(mediaApi.list, async (request) => mediaLibrary(platform, userOf(request)));

  serve(mediaApi.delete, { config: editLimit }, async (request) => {
    await deleteImage(platform, userOf(request), request.params.id);
    return { status: true as const, message: MEDIA_MESSAGES.deleted };
  });

  routesFor(app, ['campaigns'])(mediaApi.temporaryImage, { config: uploadLimit, upload }, async (request) => {
    const image = await uploadImage(platform, userOf(request), await readImage(request));
    return { status: true as const, url: image.url, message: MEDIA_MESSAGES.uploaded };
  });
});

/** A year: the name is the content's hash, so the bytes behind a URL never change. */
const CACHE_FOREVER = 'public, max-age=31536000, immutable';

/**
 * `GET /media/<hash>`: an image as emails load it, public (a mail client has no session),
 * from PostgreSQL, so any web process serves any image. Served as the type it was stored as
 * (never sniffed), with a policy that runs nothing should it be opened as a page.
 */
export const mediaPages: TRoutesPlugin = async (app, { platform }) => {
  app.get<{ Params: { hash: string } }>(
    '/media/:hash',
    { schema: { hide: true }, config: { public: true } },
    async (request, reply) => {
      const { hash } = request.params;
      if (!/^[0-9a-f]{64}$/.test(hash)) return reply.code(404).type('text/plain').send('Not found');
      const etag = `"${hash}"`;
      const file = await findServedFile(platform.db, hash);
      if (!file) return reply.code(404).header('cache-control', 'no-store').type('text/plain').send('Not found');
      reply
        .header('cache-control', CACHE_FOREVER)
        .header('etag', etag)
        .header('cross-origin-resource-policy', 'cross-origin')
        .header('content-disposition', 'inline')
        .header('content-security-policy', "default-src 'none'; sandbox");
      if (request.headers['if-none-match'] === etag) return reply.code(304).send();
      return reply.type(file.content_type).send(file.bytes);
    },
  );
};
