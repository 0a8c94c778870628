import { createHash } from 'node:crypto';
import { MEDIA_LIMITS, MEDIA_MESSAGES } from '@sendwell/contracts';
import { HttpError } from '../../platform/errors';

/**
 * An uploaded picture made safe to serve (issue 46 §4): its kind read from its bytes (never
 * from the name or the browser's word), SVG refused (it is a document that can run script),
 * then decoded and written again by sharp (libvips): what comes out holds pixels and nothing
 * else (EXIF with its GPS position, XMP, comments and ICC are left behind; a polyglot file's
 * extra payload cannot survive a re-encode), turned upright by its EXIF orientation first, and
 * scaled down to MEDIA_LIMITS.maxWidth. sharp works on libuv's threads, off the event loop.
 */

export type TImageType = (typeof MEDIA_LIMITS.types)[number];
export type TProcessedImage = { bytes: Buffer; hash: string; type: TImageType; width: number; height: number };

/** Pixels a decoded upload may have: a 5 MB PNG can claim 50,000 × 50,000 and take gigabytes. */
const MAX_PIXELS = 40_000_000;
/** Frames an animated GIF or WebP may keep. */
const MAX_FRAMES = 300;

/** The image kind from the file's first bytes, or why it is refused. */
export const sniffImage = (bytes: Buffer): TImageType | 'svg' | null => {
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'image/png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  const head = bytes.subarray(0, 12).toString('latin1');
  if (head.startsWith('GIF87a') || head.startsWith('GIF89a')) return 'image/gif';
  if (head.startsWith('RIFF') && head.slice(8, 12) === 'WEBP') return 'image/webp';
  // SVG is text: an XML declaration, a doctype, a comment or the element itself, maybe after a BOM.
  const text = bytes
    .subarray(0, 1024)
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart()
    .toLowerCase();
  if (text.startsWith('<svg') || ((text.startsWith('<?xml') || text.startsWith('<!')) && text.includes('<svg')))
    return 'svg';
  return null;
};

type TSharp = typeof import('sharp').default;
let sharpModule: Promise<TSharp> | null = null;
/** sharp and its libvips load with the first upload: most processes never see one (ARCHITECTURE, start-up). */
const loadSharp = () => {
  sharpModule ??= import('sharp').then(({ default: sharp }) => {
    // No cache of decoded images between requests: each upload is seen once.
    sharp.cache(false);
    return sharp;
  });
  return sharpModule;
};

export const processImage = async (bytes: Buffer): Promise<TProcessedImage> => {
  const type = sniffImage(bytes);
  if (type === 'svg') throw new HttpError(415, MEDIA_MESSAGES.svg, 'MEDIA_SVG');
  if (type === null) throw new HttpError(415, MEDIA_MESSAGES.type, 'MEDIA_TYPE');
  const sharp = await loadSharp();
  const isAnimated = type === 'image/gif' || type === 'image/webp';
  try {
    const input = sharp(bytes, { limitInputPixels: MAX_PIXELS, animated: isAnimated, failOn: 'error' });
    const metadata = await input.metadata();
    if ((metadata.pages ?? 1) > MAX_FRAMES) throw new HttpError(422, MEDIA_MESSAGES.tooManyPixels, 'MEDIA_PIXELS');
    const pipeline = input
      .rotate()
      .resize({ width: MEDIA_LIMITS.maxWidth, withoutEnlargement: true })
      .timeout({ seconds: 20 });
    const encoded =
      type === 'image/png'
        ? pipeline.png({ compressionLevel: 8 })
        : type === 'image/jpeg'
          ? pipeline.jpeg({ quality: 85, mozjpeg: true })
          : type === 'image/gif'
            ? pipeline.gif()
            : pipeline.webp({ quality: 85 });
    const { data, info } = await encoded.toBuffer({ resolveWithObject: true });
    return {
      bytes: data,
      hash: createHash('sha256').update(data).digest('hex'),
      type,
      width: info.width,
      // An animation's height is its frames stacked: one frame's is what a reader sees.
      height: info.pageHeight ?? info.height,
    };
  } catch (error) {
    if (error instanceof HttpError) throw error;
    const message = error instanceof Error ? error.message : '';
    if (/pixel limit/i.test(message)) throw new HttpError(422, MEDIA_MESSAGES.tooManyPixels, 'MEDIA_PIXELS');
    throw new HttpError(422, MEDIA_MESSAGES.unreadable, 'MEDIA_UNREADABLE');
  }
};
