import iconv from 'iconv-lite';
import libmime from 'libmime';
import charsets from 'libmime/lib/charset.js';

/**
 * The one MIME reader: header fields, entities, multipart bodies and charsets, for the
 * bounce and complaint reports (`delivery-events/bounce-parser.ts`) and the spam test's
 * checks of what arrived (`spam-test/*-checks.ts`). Byte-exact where mailparser is not:
 * mailparser folds a `message/delivery-status` part into the text, decodes an undeclared
 * 8-bit part as UTF-8 (a report's words then lose their charset: the suppression screen
 * showed `$B%f!<…`, ISO-2022-JP without its escapes), and makes up a text part from the
 * HTML. Here every part keeps its header fields as they arrived (folding included) and its
 * body both as received and with its transfer encoding undone; its text is decoded by its
 * declared charset (libmime: iconv-lite, and encoding-japanese for ISO-2022-JP); a part that
 * declares none is read as ISO-2022-JP when it carries its escapes, as UTF-8 when it is valid
 * UTF-8, else as Windows-1252.
 *
 * Everything here reads what a stranger may send (R24): each step is one pass over its
 * input, at most `MAX_PARTS` parts are read and nesting stops at `MAX_DEPTH`.
 */

/** One header field as it arrived: its name lower-cased, its value's lines with their folding whitespace. */
export type THeaderField = {
  name: string;
  /** The value after the colon on the first line, then each continuation line as written (line breaks taken off). */
  lines: string[];
};

export type TMimePart = {
  /** The header fields in order, as they arrived. */
  fields: THeaderField[];
  /** Lower-cased header names, each with its values in order, unfolded for reading (`readableValue`). */
  headers: Map<string, string[]>;
  /** The Content-Type's value, lower-cased (`text/plain` when absent, or `message/rfc822` in a digest). */
  type: string;
  /** The Content-Type's parameters (charset, boundary, report-type…), names lower-cased. */
  params: Record<string, string>;
  /** Whether this is a multipart whose parts were read (a multipart without a boundary, or too deep, is a leaf). */
  isMultipart: boolean;
  /** Parts of a multipart, or the message of a `message/rfc822` part. */
  children: TMimePart[];
  /** The body as received, one character a byte (latin1), transfer encoding not undone. */
  rawBody: string;
  /** The body after its transfer encoding is undone. */
  body: Buffer;
};

/** Nested messages and multiparts deeper than this are left unread (a report quotes one original). */
const MAX_DEPTH = 8;
/** Parts read of one message at the most; a real message has a few, a report a handful. */
const MAX_PARTS = 200;
/** Of a Content-Type, the characters read for its type and parameters: a real one is short. */
const CONTENT_TYPE_CHARS = 4_000;

// ------------------------------------------------------------------ header fields

/** RFC 5322 §3.6.8: printable ASCII but the colon; obsolete syntax allows white space before the colon. */
const FIELD_NAME = /^[!-9;-~]+[ \t]*$/;

/**
 * A header block's fields in order (RFC 5322 §2.2). A line that starts with white space
 * continues the field before it; a line that is neither a field nor a continuation ends
 * that field (what follows it belongs to no field).
 */
export const readHeaderFields = (head: string): THeaderField[] => {
  const fields: THeaderField[] = [];
  let last: THeaderField | null = null;
  for (const line of head.split(/\r?\n/)) {
    const first = line.charCodeAt(0);
    if (first === 0x20 || first === 0x09) {
      last?.lines.push(line);
      continue;
    }
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon) : '';
    if (!FIELD_NAME.test(name)) {
      last = null;
      continue;
    }
    last = { name: name.trimEnd().toLowerCase(), lines: [line.slice(colon + 1)] };
    fields.push(last);
  }
  return fields;
};

/** A field's value unfolded as RFC 5322 §2.2.3 says (line breaks taken out, nothing else), trimmed. */
export const unfoldedValue = (field: THeaderField) => field.lines.join('').trim();

/** A field's value for reading: each line trimmed, joined by one space. */
export const readableValue = (field: THeaderField) =>
  field.lines
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join(' ');

/** The fields as a map of lower-cased names to their readable values, in order. */
const headerMapOf = (fields: THeaderField[]) => {
  const headers = new Map<string, string[]>();
  for (const field of fields) {
    const values = headers.get(field.name);
    if (values) values.push(readableValue(field));
    else headers.set(field.name, [readableValue(field)]);
  }
  return headers;
};

/** Header lines read into a map of lower-cased names to their readable values (bytes as latin1). */
export const parseHeaders = (head: string) => headerMapOf(readHeaderFields(head));

// ------------------------------------------------------------------ entities and multiparts

/**
 * An entity's header block and body: split at the first blank line; an entity that starts
 * with one has no headers (a part written without any), one without any has no body.
 */
export const splitEntity = (entity: string) => {
  const headless = /^\r?\n/.exec(entity);
  if (headless) return { head: '', body: entity.slice(headless[0].length) };
  const blank = /\r?\n\r?\n/.exec(entity);
  if (!blank) return { head: entity, body: '' };
  return { head: entity.slice(0, blank.index), body: entity.slice(blank.index + blank[0].length) };
};

/**
 * The bodies between a multipart body's `--boundary` lines, the preamble and epilogue left
 * out, at most `limit` of them. A body whose closing delimiter never comes ends with its
 * last part, when that part holds anything.
 */
const splitMultipart = (body: string, boundary: string, limit: number) => {
  const delimiter = `--${boundary}`;
  const parts: string[] = [];
  let start: number | null = null;
  let offset = 0;
  while (offset <= body.length && parts.length < limit) {
    const newline = body.indexOf('\n', offset);
    const lineEnd = newline === -1 ? body.length : newline;
    if (body.startsWith(delimiter, offset)) {
      const rest = body.slice(offset + delimiter.length, lineEnd).trim();
      if (rest === '' || rest === '--') {
        if (start !== null) parts.push(body.slice(start, Math.max(start, offset - 1)));
        if (rest === '--') return parts;
        start = lineEnd + 1;
      }
    }
    if (newline === -1) break;
    offset = newline + 1;
  }
  if (start !== null && parts.length < limit && /\S/.test(body.slice(start))) parts.push(body.slice(start));
  return parts;
};

// ------------------------------------------------------------------ charsets and transfer encodings

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
    // Not encoded-words after all (a `=?` that opens none): the value as it reads.
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

/** A Content-Transfer-Encoding as written in the wild: any case, quoted, with a stray parameter. */
const encodingOf = (value: string | undefined) =>
  (value ?? '')
    .trim()
    .toLowerCase()
    .replace(/^["']+|["']+$/g, '')
    .split(/[\s;"']/)[0]!;

const decodeTransfer = (body: string, encoding: string) => {
  switch (encoding) {
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
  const parsed = libmime.parseHeaderValue(raw.slice(0, CONTENT_TYPE_CHARS));
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(parsed.params ?? {})) params[name.toLowerCase()] = String(value);
  return { type: (parsed.value || fallback).toLowerCase().trim(), params };
};

// ------------------------------------------------------------------ the tree

const isMessageType = (type: string) => type === 'message/rfc822' || type === 'message/global';

/**
 * A multipart may not be quoted-printable (RFC 2045 §6.4), yet some servers say so and
 * encode their parts without saying it again: a part that names no encoding of its own reads
 * with its multipart's, so an address split by a soft line break is whole again.
 */
const inheritedEncodingOf = (encoding: string) => (encoding === 'quoted-printable' ? encoding : '');

const parsePart = (
  raw: string,
  depth: number,
  defaultType: string,
  budget: { parts: number },
  inheritedEncoding = '',
): TMimePart => {
  budget.parts++;
  const { head, body: rawBody } = splitEntity(raw);
  const fields = readHeaderFields(head);
  const headers = headerMapOf(fields);
  const { type, params } = contentTypeOf(headers, defaultType);
  const declared = headers.get('content-transfer-encoding')?.[0];
  const encoding = declared === undefined ? inheritedEncoding : encodingOf(declared);
  const body = decodeTransfer(rawBody, encoding);
  const part: TMimePart = { fields, headers, type, params, isMultipart: false, children: [], rawBody, body };
  if (depth >= MAX_DEPTH) return part;
  if (type.startsWith('multipart/') && params.boundary) {
    part.isMultipart = true;
    const childType = type === 'multipart/digest' ? 'message/rfc822' : 'text/plain';
    for (const child of splitMultipart(rawBody, params.boundary, MAX_PARTS - budget.parts)) {
      if (budget.parts >= MAX_PARTS) break;
      part.children.push(parsePart(child, depth + 1, childType, budget, inheritedEncodingOf(encoding)));
    }
  } else if (isMessageType(type) && budget.parts < MAX_PARTS) {
    part.children.push(parsePart(body.toString('latin1'), depth + 1, 'text/plain', budget));
  }
  return part;
};

/** Reads a whole message into its parts (a string is taken as UTF-8 text). */
export const parseMime = (raw: Buffer | string): TMimePart =>
  parsePart(
    typeof raw === 'string' ? Buffer.from(raw, 'utf8').toString('latin1') : raw.toString('latin1'),
    0,
    'text/plain',
    { parts: 0 },
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
  if (isMessageType(part.type) && !intoMessages) return all;
  for (const child of part.children) all.push(...partsOf(child, { intoMessages }));
  return all;
};

/** The parts a reader is shown or offered (not multiparts; an attached message is one), depth first. */
export const leavesOf = (part: TMimePart): TMimePart[] => partsOf(part).filter((each) => !each.isMultipart);
