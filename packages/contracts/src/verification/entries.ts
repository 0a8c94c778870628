/**
 * What the verification tool takes as one entry, in one place: the paste box's live count,
 * the confirmation's figures and what the server stores and charges all come from these
 * rules, so the counts a user confirms are the counts charged.
 *
 * A pasted line is one entry. It holds several addresses only where commas or semicolons
 * stand between complete addresses (`ann@x.com, bob@y.com`); `Name <addr>`, `<addr>` and
 * `"Last, First" <addr>` give the address, as in a list import (`readEmailCell`). Spaces
 * never split: `John Doe <john@x.com>` is one entry, and `te st@x.com` is one entry that is
 * not an address, never `st@x.com`. Punctuation after an address (`ann@x.com.`) is not part
 * of it. An entry that is not an address is kept with its reason: it is reported invalid
 * and costs nothing. A line with a control character (NUL and the like) is one such entry.
 *
 * A CSV upload gives one entry per data row: the cell of the column the user mapped to the
 * email, read exactly as a list import reads it. A row whose cell is empty has no entry;
 * it is counted and reported by its row number instead of dropped silently.
 */
import { readEmailCell } from '../lists/email';

export const ENTRY_PROBLEMS = {
  controlCharacter: 'a control character in this line',
  tooLong: 'too long to be an email address',
} as const;

/** Characters of an invalid entry kept to show it (an address is at most 254). */
export const ENTRY_TEXT_MAX = 300;

export type TEntry =
  /** `line`: the line of the paste, or the row of the file, counting from 1. */
  | { line: number; text: string; email: string; problem: null }
  | { line: number; text: string; email: null; problem: string };

// C0 controls but tab, DEL and C1 controls: never part of an address, and NUL cannot be stored.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROLS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;
/** Line breaks, the Unicode ones included (a paste from a word processor may carry them). */
const LINE_BREAK = /\r\n|[\n\r\u0085\u2028\u2029]/;
/** Sentence punctuation after an address; never the `>` that closes `<addr>`. */
const TRAILING_PUNCTUATION = /[.,;:!?)\]}"'»]+$/;

/** Text fit to store and show: control characters as U+FFFD, at most ENTRY_TEXT_MAX characters. */
const shownText = (text: string) => {
  const clean = text.replace(CONTROLS, '\uFFFD');
  return clean.length > ENTRY_TEXT_MAX ? `${clean.slice(0, ENTRY_TEXT_MAX - 1)}…` : clean;
};

const invalid = (line: number, text: string, problem: string): TEntry => ({
  line,
  text: shownText(text),
  email: null,
  problem,
});

/** One entry's text as an address, or why it is not one. `stripPunctuation`: a paste's rule. */
const readEntry = (line: number, raw: string, stripPunctuation: boolean): TEntry => {
  const text = raw.trim();
  if (CONTROL.test(text)) {
    const code = text.match(CONTROL)![0].codePointAt(0)!;
    return invalid(
      line,
      text,
      `${ENTRY_PROBLEMS.controlCharacter} (U+${code.toString(16).toUpperCase().padStart(4, '0')})`,
    );
  }
  if (text.length > ENTRY_TEXT_MAX) return invalid(line, text, ENTRY_PROBLEMS.tooLong);
  const candidate = stripPunctuation ? text.replace(TRAILING_PUNCTUATION, '') : text;
  const reading = readEmailCell(candidate);
  if (reading.email !== null) return { line, text, email: reading.email, problem: null };
  return invalid(line, text, reading.problem);
};

const readsAsAddress = (text: string) => readEntry(0, text, true).email !== null;

/**
 * Where a line's parts start and end: at commas and semicolons outside quotes and angle
 * brackets, so the only separator of `"Lee, Ann" <ann@x.com>; bob@y.com` is the one
 * between the two addresses. Blank parts are left out.
 */
const partsBetweenSeparators = (line: string) => {
  const parts: { start: number; end: number }[] = [];
  let start = 0;
  let isQuoted = false;
  let angleDepth = 0;
  const close = (end: number) => {
    if (line.slice(start, end).trim() !== '') parts.push({ start, end });
    start = end + 1;
  };
  for (let index = 0; index < line.length; index++) {
    const character = line[index];
    if (character === '\\' && isQuoted) index++;
    else if (character === '"') isQuoted = !isQuoted;
    else if (!isQuoted && character === '<') angleDepth++;
    else if (!isQuoted && character === '>') angleDepth = Math.max(0, angleDepth - 1);
    else if (!isQuoted && angleDepth === 0 && (character === ',' || character === ';')) close(index);
  }
  close(line.length);
  return parts;
};

/**
 * One pasted line's entries. The whole line first (`Doe, John <john@x.com>` is one address);
 * otherwise its parts between separators, where a part that is no address on its own is
 * joined to the next when together they are one (`Doe, John <john@x.com>; bob@y.com`), and
 * is an invalid entry of its own when not: the good addresses beside it still count.
 */
const lineEntries = (line: number, text: string): TEntry[] => {
  const whole = readEntry(line, text, true);
  if (whole.email !== null || CONTROL.test(text)) return [whole];
  const parts = partsBetweenSeparators(text);
  if (parts.length <= 1) return [whole];
  const slice = (from: number, to: number) => text.slice(parts[from]!.start, parts[to]!.end);
  const entries: TEntry[] = [];
  let pending: number | null = null;
  parts.forEach((part, index) => {
    // A join longer than any address is not tried: a line of thousands of parts stays linear.
    const canJoin = pending !== null && part.end - parts[pending]!.start <= ENTRY_TEXT_MAX;
    if (canJoin && readsAsAddress(slice(pending!, index))) {
      entries.push(readEntry(line, slice(pending!, index), true));
      pending = null;
    } else if (readsAsAddress(slice(index, index))) {
      if (pending !== null) entries.push(readEntry(line, slice(pending, index - 1), true));
      entries.push(readEntry(line, slice(index, index), true));
      pending = null;
    } else {
      pending ??= index;
    }
  });
  if (pending !== null) entries.push(readEntry(line, slice(pending, parts.length - 1), true));
  return entries;
};

/** The entries of a paste, line by line; blank lines have none. */
export const readPastedEntries = (text: string): TEntry[] =>
  text.split(LINE_BREAK).flatMap((line, index) => (line.trim() === '' ? [] : lineEntries(index + 1, line)));

/**
 * The entries of a parsed CSV file: one per data row, from the mapped email column, read as
 * a list import reads a cell. Rows whose cell is empty are answered apart, by row number.
 */
export const readColumnEntries = (
  rows: readonly (readonly string[])[],
  { hasHeaders, emailColumn }: { hasHeaders: boolean; emailColumn: number },
): { entries: TEntry[]; emptyRows: number[] } => {
  const entries: TEntry[] = [];
  const emptyRows: number[] = [];
  rows.forEach((row, index) => {
    if (hasHeaders && index === 0) return;
    const cell = row[emailColumn] ?? '';
    if (cell.trim() === '') emptyRows.push(index + 1);
    else entries.push(readEntry(index + 1, cell, false));
  });
  return { entries, emptyRows };
};

export type TDistinctEntries = {
  /** Each address once (ignoring case), as first written. */
  addresses: string[];
  /** Each entry that is not an address once, with its first line and its reason. */
  invalid: { line: number; text: string; problem: string }[];
  /** Entries that repeat an earlier one. */
  duplicates: number;
};

/**
 * Entries counted as the tool charges them: an address once whatever its spelling
 * (`otto@müller.de`, `otto@xn--mller-kva.de` and `<otto@müller.de>` are one), and every
 * entry that is not an address once, for free.
 */
export const distinctEntries = (entries: readonly TEntry[]): TDistinctEntries => {
  const addresses = new Map<string, string>();
  const invalid = new Map<string, { line: number; text: string; problem: string }>();
  let duplicates = 0;
  for (const entry of entries) {
    if (entry.email !== null) {
      const key = entry.email.toLowerCase();
      if (addresses.has(key)) duplicates++;
      else addresses.set(key, entry.email);
    } else {
      const key = entry.text.toLowerCase();
      if (invalid.has(key)) duplicates++;
      else invalid.set(key, { line: entry.line, text: entry.text, problem: entry.problem });
    }
  }
  return { addresses: [...addresses.values()], invalid: [...invalid.values()], duplicates };
};
