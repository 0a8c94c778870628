import iconv from 'iconv-lite';
import libmime from 'libmime';
import charsets from 'libmime/lib/charset.js';

/**
 * A small MIME reader for delivery reports and complaints, byte-exact where mailparser is
 * not: mailparser folds a `message/delivery-status` part into the text and decodes an
 * undeclared 8-bit part as UTF-8, and a report's words then lose their charset (the
 * suppression screen showed `$B%f!<…`, ISO-2022-JP without its escapes). Here every part
 * keeps its headers and its bytes, is decoded by its transfer encoding, and its text by
 * its declared charset (libmime: iconv-lite, and encoding-japanese for ISO-2022-JP); a part
 * that declares none is read as ISO-2022-JP when it carries its escapes, as UTF-8 when it is
 * valid UTF-8, else as Windows-1252. Header values have their encoded-words decoded.
 */

export type TMimePart = {
  /** Lower-cased header names, each with its unfolded raw values in order. */
  headers: Map<string, string[]>;
  /** The Content-Type's value, lower-cased (`text/plain` when absent). */
  type: string;
  /** The Content-Type's parameters (charset, boundary, report-type…). */
  params: Record<string, string>;
  /** Parts of a multipart, or the message of a `message/rfc822` part. */
  children: TMimePart[];
  /** The body after its transfer encoding is undone. */
  body: Buffer;
};

/** Nested messages and multiparts deeper than this are left unread (a report quotes one original). */
const MAX_DEPTH = 8;

const splitHead = (raw: string) => {
  const match = /\r?\n\r?\n/.exec(raw);
  if (!match) return { head: raw, body: '' };
  return { head: raw.slice(0, match.index), body: raw.slice(match.index + match[0].length) };
};

/** Header lines unfolded; raw values (bytes as latin1). */
export const parseHeaders = (head: string) => {
  const headers = new Map<string, string[]>();
  let last: { name: string; index: number } | null = null;
  for (const line of head.split(/\r?\n/)) {
    if (/^[ \t]/.test(line) && last) {
      const values = headers.get(last.name)!;
      values[last.index] = `${values[last.index]} ${line.trim()}`;
      continue;
    }
    const match = /^([!-9;-~]+):[ \t]*(.*)$/.exec(line);
    if (!match) {
      last = null;
      continue;
    }
    const name = match[1]!.toLowerCase();
    const values = headers.get(name) ?? [];
    values.push(match[2]!.trim());
    headers.set(name, values);
    last = { name, index: values.length - 1 };
  }
  return headers;
};

const isValidUtf8 = (bytes: Buffer) => {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
};

/**
 * Bytes as text in their charset; without one (or an unknown one), ISO-2022-JP when its
 * escapes are there, UTF-8 when valid, else Windows-1252 (what undeclared 8-bit mail
 * mostly is).
 */
export const decodeText = (bytes: Buffer, charset: string | undefined) => {
  const declared = charset?.trim().replace(/^"|"$/g, '');
  if (declared && !/^(us-)?ascii$/i.test(declared)) {
    const name = charsets.normalizeCharset(declared);
    // libmime reads an unknown charset as UTF-8 with replacement characters: only known ones go to it.
    if (/^(jis|iso-?2022-?jp|euc-?jp)/i.test(name) || iconv.encodingExists(name)) return charsets.decode(bytes, name);
  }
  // ISO-2022-JP's escape into JIS X 0208 (ESC $ @ or ESC $ B).
  const jisAt = bytes.indexOf(0x1b);
  if (jisAt >= 0 && bytes[jisAt + 1] === 0x24 && (bytes[jisAt + 2] === 0x40 || bytes[jisAt + 2] === 0x42)) {
    return charsets.decode(bytes, 'ISO-2022-JP');
  }
  if (isValidUtf8(bytes)) return bytes.toString('utf8');
  return charsets.decode(bytes, 'WINDOWS-1252');
};

/**
 * A header value as a reader sees it: encoded-words decoded (RFC 2047, any charset), and
 * raw 8-bit bytes read as UTF-8 when valid, else in the message's charset.
 */
export const decodeHeaderValue = (value: string, fallbackCharset?: string) => {
  // A value read as latin1 bytes (a raw header) may hold 8-bit or ISO-2022-JP bytes to decode;
  // a value already decoded (a part's text) holds characters beyond latin1 and is left as is.
  let isRawBytes = false;
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    if (code > 0xff) {
      isRawBytes = false;
      break;
    }
    if (code >= 0x80 || code === 0x1b) isRawBytes = true;
  }
  const bytes = Buffer.from(value, 'latin1');
  const text = isRawBytes ? decodeText(bytes, isValidUtf8(bytes) ? 'utf-8' : fallbackCharset) : value;
  try {
    return libmime.decodeWords(text);
  } catch {
    return text;
  }
};

/** Quoted-printable to bytes: soft line breaks joined, `=XX` a byte, anything else as written. */
const decodeQuotedPrintable = (body: string) => {
  const text = body.replace(/[ \t]+(\r?\n)/g, '$1').replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let index = 0; index < text.length; index++) {
    const hex = text.slice(index + 1, index + 3);
    if (text[index] === '=' && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(Number.parseInt(hex, 16));
      index += 2;
    } else {
      bytes.push(text.charCodeAt(index) & 0xff);
    }
  }
  return Buffer.from(bytes);
};

const decodeTransfer = (body: string, encoding: string | undefined) => {
  switch ((encoding ?? '').trim().toLowerCase()) {
    case 'base64':
      return Buffer.from(body.replace(/[^A-Za-z0-9+/=]/g, ''), 'base64');
    case 'quoted-printable':
      return decodeQuotedPrintable(body);
    default:
      return Buffer.from(body, 'latin1');
  }
};

const contentTypeOf = (headers: Map<string, string[]>, fallback: string) => {
  const raw = headers.get('content-type')?.[0];
  if (!raw) return { type: fallback, params: {} as Record<string, string> };
  const parsed = libmime.parseHeaderValue(raw);
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(parsed.params ?? {})) params[name.toLowerCase()] = String(value);
  return { type: (parsed.value || fallback).toLowerCase().trim(), params };
};

/** The parts of a multipart body between its boundary lines (preamble and epilogue left out). */
const splitMultipart = (body: string, boundary: string) => {
  const parts: string[] = [];
  const delimiter = `--${boundary}`;
  let current: string[] | null = null;
  for (const line of body.split(/\n/)) {
    const bare = line.replace(/\r$/, '').replace(/[ \t]+$/, '');
    if (bare === delimiter || bare === `${delimiter}--`) {
      if (current) parts.push(current.join('\n'));
      if (bare.endsWith('--') && bare !== delimiter) return parts;
      current = [];
      continue;
    }
    current?.push(line);
  }
  if (current && current.length > 0) parts.push(current.join('\n'));
  return parts;
};

const parsePart = (raw: string, depth: number, defaultType: string): TMimePart => {
  const { head, body: rawBody } = splitHead(raw);
  const headers = parseHeaders(head);
  const { type, params } = contentTypeOf(headers, defaultType);
  const body = decodeTransfer(rawBody, headers.get('content-transfer-encoding')?.[0]);
  const children: TMimePart[] = [];
  if (depth < MAX_DEPTH) {
    if (type.startsWith('multipart/') && params.boundary) {
      const childType = type === 'multipart/digest' ? 'message/rfc822' : 'text/plain';
      for (const child of splitMultipart(rawBody, params.boundary))
        children.push(parsePart(child, depth + 1, childType));
    } else if (type === 'message/rfc822' || type === 'message/global') {
      children.push(parsePart(body.toString('latin1'), depth + 1, 'text/plain'));
    }
  }
  return { headers, type, params, children, body };
};

/** Reads a whole message into its parts. */
export const parseMime = (raw: Buffer | string): TMimePart =>
  parsePart(
    typeof raw === 'string' ? Buffer.from(raw, 'utf8').toString('latin1') : raw.toString('latin1'),
    0,
    'text/plain',
  );

/** A part's first value of a header, decoded for reading ('' when absent). */
export const headerOf = (part: TMimePart, name: string) => {
  const value = part.headers.get(name.toLowerCase())?.[0];
  return value === undefined ? '' : decodeHeaderValue(value, part.params.charset);
};

/** A part's body as text in its charset. */
export const textOf = (part: TMimePart) => decodeText(part.body, part.params.charset);

/** Every part of the tree, depth first, not descending into attached messages unless asked. */
export const partsOf = (part: TMimePart, { intoMessages = false } = {}): TMimePart[] => {
  const all: TMimePart[] = [part];
  const isMessage = part.type === 'message/rfc822' || part.type === 'message/global';
  if (isMessage && !intoMessages) return all;
  for (const child of part.children) all.push(...partsOf(child, { intoMessages }));
  return all;
};
