/**
 * A message's bytes, built without streams (issue 49, B1). nodemailer's `build()` writes
 * each MIME node through `stream.pipeline` with `setImmediate` between steps, and on
 * Node 20 every finished pipeline aborts an AbortController, which builds a DOMException
 * with its stack: about 100 µs of a message's 600 in the engine. Here the same tree
 * (nodemailer's `MailComposer.compile()`: its headers, address and word encoding,
 * transfer-encoding choice) is written in one pass, each body through nodemailer's own
 * quoted-printable or base64 encoder driven directly, so the bytes are the ones `build()`
 * writes (test/mime-build.test.ts holds them equal over random messages). A tree this
 * pass does not know (a stream, a file or a raw part) is left to `build()`.
 */
import { randomBytes } from 'node:crypto';
import type { Transform } from 'node:stream';
import * as base64 from 'nodemailer/lib/base64';
import MailComposer from 'nodemailer/lib/mail-composer';
import type Mail from 'nodemailer/lib/mailer';
import type MimeNode from 'nodemailer/lib/mime-node';
import * as qp from 'nodemailer/lib/qp';

/** What the pass reads of a node beyond nodemailer's typed surface. */
type TNode = MimeNode & { contentType?: string; _raw?: unknown; _transforms?: unknown[]; _processFuncs?: unknown[] };

const ignore = () => {};

/** A stream encoder run over one whole body at once, as `build()` feeds it one chunk. */
const encodeWith = (encoder: Transform, content: Buffer, out: Buffer[]) => {
  encoder.push = (chunk: Buffer | string) => {
    out.push(typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk);
    return true;
  };
  // 'buffer' is what a stream passes for a Buffer chunk (Node's types leave it out).
  encoder._transform(content, 'buffer' as BufferEncoding, ignore);
  encoder._flush!(ignore);
};

/** Whether the one pass writes this tree as `build()` would: string or buffer bodies only. */
const isPlain = (node: TNode): boolean =>
  !node._raw &&
  !node._transforms?.length &&
  !node._processFuncs?.length &&
  (node.content === undefined || typeof node.content === 'string' || Buffer.isBuffer(node.content)) &&
  node.childNodes.every(isPlain);

const write = (node: TNode, out: Buffer[]) => {
  // buildHeaders first: it settles the node's transfer encoding and multipart boundary.
  out.push(Buffer.from(`${node.buildHeaders()}\r\n\r\n`));
  if (node.content) {
    const content = typeof node.content === 'string' ? Buffer.from(node.content) : (node.content as Buffer);
    const encoding = node.getTransferEncoding();
    if (encoding === 'quoted-printable') {
      // Outside text a lone CR or LF is data (as build() encodes it).
      const options: qp.EncoderOptions & { binary: boolean } = { binary: !/^text\//i.test(node.contentType ?? '') };
      encodeWith(new qp.Encoder(options), content, out);
    } else if (encoding === 'base64') encodeWith(new base64.Encoder(), content, out);
    else out.push(content);
  }
  if (node.multipart) {
    node.childNodes.forEach((child, index) => {
      out.push(Buffer.from(`${index > 0 ? '\r\n' : ''}--${node.boundary}\r\n`));
      write(child as TNode, out);
    });
    out.push(Buffer.from(`\r\n--${node.boundary}--\r\n`));
  }
};

/**
 * Random boundaries from a pool (one `randomBytes` call for 512 messages): a boundary must
 * not be guessable, or a merge field could hold one and split its own message.
 */
let pool = Buffer.alloc(0);
let poolAt = 0;
const randomBoundary = () => {
  if (poolAt + 8 > pool.length) {
    pool = randomBytes(8 * 512);
    poolAt = 0;
  }
  poolAt += 8;
  return pool.toString('hex', poolAt - 8, poolAt);
};

/** The RFC 5322 bytes of a message, ending with CRLF, as nodemailer's `build()` writes them. */
export const buildMime = async (mail: Mail.Options & { baseBoundary?: string }): Promise<Buffer> => {
  const root = new MailComposer({ baseBoundary: randomBoundary(), ...mail } as Mail.Options).compile() as TNode;
  if (!isPlain(root)) return root.build();
  const out: Buffer[] = [];
  write(root, out);
  const last = out.findLast((chunk) => chunk.length > 0)?.at(-1);
  // build() ends a message with a line break (its LastNewline transform).
  if (last !== 0x0a) out.push(Buffer.from(last === 0x0d ? '\n' : '\r\n'));
  return Buffer.concat(out);
};
