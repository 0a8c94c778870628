/**
 * CSV rules the browser's preview and the server's import share, so what the preview
 * shows is what the import does: encoding and delimiter detection, the email column
 * auto-mapping, the first-row rule and the generic-address test (address rules: `email.ts`).
 */
import { looksLikeAddress, readEmailCell } from './email';
import { LIST_MESSAGES } from './lists';

export const CSV_EXTENSIONS = ['csv', 'txt'] as const;
export const CSV_MIME_TYPES = ['text/csv', 'text/plain', 'application/vnd.ms-excel', ''] as const;
/** The drip wizard's browser-only upload limit (drip-accounts-dashboard §5, 'Max 1.5 mb'). */
export const CSV_BROWSER_MAX_BYTES = 1500 * 1024;
/** Rows the import modal previews (spec: 2 to 3). */
export const CSV_PREVIEW_ROWS = 3;
/** A row longer than this is not CSV: the import stops instead of buffering it. */
export const CSV_MAX_RECORD_BYTES = 64 * 1024;

export const hasCsvExtension = (fileName: string) => {
  const extension = fileName.split('.').pop()?.toLowerCase() ?? '';
  return fileName.includes('.') && (CSV_EXTENSIONS as readonly string[]).includes(extension);
};

export type TCsvEncoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252';

/** The byte-order mark's length for an encoding found by `detectEncoding`. */
export const bomLength = (bytes: Uint8Array, encoding: TCsvEncoding) => {
  if (encoding === 'utf-8' && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 3;
  if (encoding === 'utf-16le' && bytes[0] === 0xff && bytes[1] === 0xfe) return 2;
  if (encoding === 'utf-16be' && bytes[0] === 0xfe && bytes[1] === 0xff) return 2;
  return 0;
};

const isValidUtf8 = (bytes: Uint8Array) => {
  try {
    // A cut multi-byte character at the sample's end is not an error.
    new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: true });
    return true;
  } catch {
    return false;
  }
};

/**
 * The encoding of a file from its first bytes: a byte-order mark decides; without one,
 * NUL bytes on every other position mean UTF-16 (spreadsheets' "Unicode text"), valid
 * UTF-8 means UTF-8, and anything else is read as Windows-1252 (old Excel exports).
 */
export const detectEncoding = (sample: Uint8Array): TCsvEncoding => {
  if (sample[0] === 0xef && sample[1] === 0xbb && sample[2] === 0xbf) return 'utf-8';
  if (sample[0] === 0xff && sample[1] === 0xfe) return 'utf-16le';
  if (sample[0] === 0xfe && sample[1] === 0xff) return 'utf-16be';
  const length = Math.min(sample.length, 4096) & ~1;
  if (length >= 4) {
    let evenNuls = 0;
    let oddNuls = 0;
    for (let index = 0; index < length; index += 2) {
      if (sample[index] === 0) evenNuls += 1;
      if (sample[index + 1] === 0) oddNuls += 1;
    }
    const pairs = length / 2;
    if (oddNuls > pairs * 0.4 && evenNuls < pairs * 0.05) return 'utf-16le';
    if (evenNuls > pairs * 0.4 && oddNuls < pairs * 0.05) return 'utf-16be';
  }
  return isValidUtf8(sample.subarray(0, 65_536)) ? 'utf-8' : 'windows-1252';
};

/** Text of a file's first bytes, without its byte-order mark. */
export const decodeSample = (sample: Uint8Array) => {
  const encoding = detectEncoding(sample);
  const text = new TextDecoder(encoding).decode(sample.subarray(bomLength(sample, encoding)));
  return { encoding, text };
};

export const CSV_DELIMITERS = [',', ';', '\t', '|'] as const;
export type TCsvDelimiter = (typeof CSV_DELIMITERS)[number];

/** Counts a delimiter per line outside quotes, over the sample's first lines. */
const delimiterCounts = (text: string, delimiter: string, maxLines: number) => {
  const counts: number[] = [];
  let count = 0;
  let isQuoted = false;
  for (let index = 0; index < text.length && counts.length < maxLines; index += 1) {
    const character = text[index];
    if (character === '"') isQuoted = !isQuoted;
    else if (!isQuoted && character === delimiter) count += 1;
    else if (!isQuoted && (character === '\n' || character === '\r')) {
      if (character === '\r' && text[index + 1] === '\n') index += 1;
      counts.push(count);
      count = 0;
    }
  }
  if (counts.length < maxLines && count > 0) counts.push(count);
  return counts;
};

/**
 * The delimiter a file uses: the one found on the most lines with the same non-zero
 * count (consistency first, then how many it splits into). Comma when nothing splits.
 */
export const detectDelimiter = (sampleText: string): TCsvDelimiter => {
  let best: TCsvDelimiter = ',';
  let bestScore = 0;
  for (const delimiter of CSV_DELIMITERS) {
    const counts = delimiterCounts(sampleText, delimiter, 20).filter((count) => count > 0);
    if (counts.length === 0) continue;
    const frequency = new Map<number, number>();
    for (const count of counts) frequency.set(count, (frequency.get(count) ?? 0) + 1);
    const [mode, lines] = [...frequency.entries()].sort((a, b) => b[1] - a[1] || b[0] - a[0])[0]!;
    const score = lines * 1000 + mode;
    if (score > bestScore) {
      best = delimiter;
      bestScore = score;
    }
  }
  return best;
};

/** The column whose header equals 'email' (ignoring case and spaces), which the modal locks. */
export const findEmailHeader = (headers: readonly string[]) => {
  const index = headers.findIndex((header) => header.trim().toLowerCase() === 'email');
  return index === -1 ? null : index;
};

/** A header turned into a custom field key (`First Name` → `first_name`). */
export const fieldKeyOf = (header: string) =>
  header
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 64);

/**
 * The spec's first-row rule (§5): the first data row's email must be valid, otherwise the
 * person is told that a header row must be removed (or marked as one). Checked by the import
 * dialog on its preview and by the server on the uploaded file, the same way. Also refused:
 * a row said to be headers whose email cell looks like an address, which would otherwise be
 * dropped without a word. `rows` are the file's first rows, a header row included.
 */
export const firstRowProblem = (
  rows: readonly (readonly string[])[],
  mapping: { hasHeaders: boolean; emailColumn: number },
): string | null => {
  if (mapping.hasHeaders && looksLikeAddress(rows[0]?.[mapping.emailColumn] ?? '')) {
    return LIST_MESSAGES.headerLooksLikeAddress;
  }
  const first = rows[mapping.hasHeaders ? 1 : 0];
  if (!first) return LIST_MESSAGES.uploadFirst;
  return readEmailCell(first[mapping.emailColumn] ?? '').email === null ? LIST_MESSAGES.headerRow : null;
};

/** Whether an address's local part is one of the generic names (info@, sales@…). */
export const isGenericEmail = (email: string, genericNames: ReadonlySet<string>) => {
  const at = email.lastIndexOf('@');
  if (at <= 0) return false;
  return genericNames.has(email.slice(0, at).toLowerCase());
};

/** '...and N more' after a preview of the first `shown` addresses. */
export const moreText = (total: number, shown: number) => (total > shown ? `...and ${total - shown} more` : '');

const FORMULA_STARTS = new Set(['=', '+', '-', '@', '\t', '\r']);

/**
 * Escapes a cell for a CSV export so spreadsheets never run it as a formula (R17): a cell
 * beginning with = + - @ (or tab / CR) gets a leading apostrophe.
 */
export const safeCell = (value: string) => (FORMULA_STARTS.has(value.charAt(0)) ? `'${value}` : value);
