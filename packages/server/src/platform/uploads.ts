import { UPLOAD_MESSAGES } from '@sendwell/contracts';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { handleError } from './error-handler';
import { HttpError } from './errors';

/**
 * How every upload route (list imports, the verification tool, drip recipients) treats its
 * body, in one place:
 * - a body declared larger than the route takes (`Content-Length`) is refused at once, from
 *   the header, before a byte of it is read (413);
 * - one that grows past the limit while it arrives (no length declared, or a multipart file
 *   over its size) is refused at that point, and no more of it is read;
 * - a compressed body (`Content-Encoding: gzip`…) is refused (400): nothing here inflates
 *   uploads, and reading one as if it were plain text only fails later and worse;
 * - a body that ends before its end (a form without its closing boundary, JSON cut off) is
 *   a 400 saying it was cut short.
 * Nothing is stored in any of these cases (each route's service stores only a whole upload).
 * A refusal before the body was read to its end closes the connection: otherwise Node reads
 * (and throws away) the rest of it to keep the connection alive, a 300 MB body in full.
 */
export type TUploadLimit = {
  /** The largest body the route takes, in bytes. */
  maxBytes: number;
  /** The 413's message, in the spec's words where it has some (e.g. 'Max 1.5 mb'). */
  tooLarge?: string;
};

/** Errors of the multipart reader (busboy, @fastify/multipart) that mean the body ended early. */
const isCutShort = (error: FastifyError | Error) => {
  const code = (error as FastifyError).code;
  return (
    code === 'FST_MP_PREMATURE_CLOSE' ||
    code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH' ||
    /unexpected end of (multipart data|form)|terminated early/i.test(error.message)
  );
};

const isTooLarge = (error: FastifyError | Error) => {
  const code = (error as FastifyError).code;
  return code === 'FST_REQ_FILE_TOO_LARGE' || code === 'FST_ERR_CTP_BODY_TOO_LARGE' || code === 'FST_PARTS_LIMIT';
};

/** An answer before the whole body was read: the connection closes after it (see above). */
const closeIfUnread = (request: FastifyRequest, reply: FastifyReply) => {
  if (!request.raw.complete) reply.header('connection', 'close');
};

/**
 * A multipart upload's parts, with each file stream failing (413) the moment it passes the
 * file size limit. The reader only marks such a file truncated and goes on reading the
 * body to the part's end, which for a body that never ends is never, and otherwise all of it.
 */
export async function* uploadParts(
  request: FastifyRequest,
  { tooLarge = UPLOAD_MESSAGES.tooLarge }: Pick<TUploadLimit, 'tooLarge'> = {},
) {
  for await (const part of request.parts()) {
    if (part.type === 'file') {
      part.file.once('limit', () => part.file.destroy(new HttpError(413, tooLarge, 'UPLOAD_TOO_LARGE')));
    }
    yield part;
  }
}

/** The route options (`bodyLimit`, an `onRequest` check, an error handler) of an upload route. */
export const uploadRouteOptions = ({ maxBytes, tooLarge = UPLOAD_MESSAGES.tooLarge }: TUploadLimit) => ({
  bodyLimit: maxBytes,
  onRequest: async (request: FastifyRequest, reply: FastifyReply) => {
    const encoding = request.headers['content-encoding']?.trim().toLowerCase();
    if (encoding && encoding !== 'identity') {
      closeIfUnread(request, reply);
      throw new HttpError(400, UPLOAD_MESSAGES.encoded, 'UPLOAD_ENCODED');
    }
    const declared = Number(request.headers['content-length']);
    if (declared > maxBytes) {
      closeIfUnread(request, reply);
      throw new HttpError(413, tooLarge, 'UPLOAD_TOO_LARGE');
    }
  },
  errorHandler: (error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) => {
    closeIfUnread(request, reply);
    if (isCutShort(error))
      return handleError(new HttpError(400, UPLOAD_MESSAGES.cutShort, 'UPLOAD_CUT_SHORT'), request, reply);
    if ((error as FastifyError).code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
      return handleError(new HttpError(400, UPLOAD_MESSAGES.notJson, 'UPLOAD_NOT_JSON'), request, reply);
    }
    if (isTooLarge(error)) return handleError(new HttpError(413, tooLarge, 'UPLOAD_TOO_LARGE'), request, reply);
    return handleError(error, request, reply);
  },
});
