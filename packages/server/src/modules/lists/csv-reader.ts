import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  bomLength,
  CSV_MAX_RECORD_BYTES,
  decodeSample,
  detectDelimiter,
  safeCell,
  type TCsvDelimiter,
  type TCsvEncoding,
} from '@sendwell/contracts';
import { CsvError, Parser } from 'csv-parse';
import { stringify } from 'csv-stringify';
import iconv from 'iconv-lite';

/** Bytes the encoding, delimiter and binary checks look at (detectEncoding reads no further). */
const SAMPLE_BYTES = 64 * 1024;
/**
 * Input is handed to the parser in pieces of at most this size, whatever the size of the
 * chunks it arrives in: the rows of one piece are all that is held at once, and the
 * record-length guard (`readPiece`) is never more than one piece late.
 */
const PIECE_BYTES = 16 * 1024;
const DEFAULT_BATCH_SIZE = 2000;
const NOT_TEXT_MESSAGE = 'This file is not a text file: please upload a CSV export.';

/** One record of the file; `line` counts records from 1 (the header row is 1), empty lines not counted. */
export type TCsvRow = { line: number; cells: string[] };

/** The file cannot be read as CSV; the message is worded for the person who uploaded it. */
export class CsvReadError extends Error {
  constructor(
    message: string,
    readonly line?: number,
  ) {
    super(message);
    this.name = 'CsvReadError';
  }
}

export type TCsvReadOptions = {
  /** A record longer than this stops the read (default `CSV_MAX_RECORD_BYTES`, 64 KB). */
  maxRecordBytes?: number;
  /** Rows per yielded batch (default 2000). */
  batchSize?: number;
  /** Called as raw input bytes are consumed, with the running total, for progress. */
  onBytes?: (bytesRead: number) => void;
  signal?: AbortSignal;
};

export type TCsvReportWriter = {
  /** Resolves once the row is buffered below the stream's high-water mark. */
  write: (row: string[]) => Promise<void>;
  /** Flushes and closes the file; rejects with the first write error. */
  end: () => Promise<void>;
};

const inspectSample = (sample: Buffer) => {
  const head = sample.subarray(0, SAMPLE_BYTES);
  const { encoding, text } = decodeSample(head);
  return { encoding, text, delimiter: detectDelimiter(text), bom: bomLength(head, encoding) };
};

/** Encoding, delimiter and byte-order-mark length of a file, from its first bytes (64 KB are read). */
export const detectFileFormat = (sample: Buffer): { encoding: TCsvEncoding; delimiter: TCsvDelimiter; bom: number } => {
  const { encoding, delimiter, bom } = inspectSample(sample);
  return { encoding, delimiter, bom };
};

/**
 * Whether decoded text is binary: text exports never hold NUL, and have next to no control
 * characters besides tab, line breaks and form feed; images, zips and spreadsheets in
 * their native format are full of both.
 */
const isBinaryText = (text: string) => {
  if (text.includes('\u0000')) return true;
  let controls = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x20 ? code !== 0x09 && code !== 0x0a && code !== 0x0c && code !== 0x0d : code >= 0x7f && code <= 0x9f) {
      controls += 1;
    }
  }
  return controls > Math.max(8, text.length * 0.01);
};

const sizeText = (bytes: number) => (bytes % 1024 === 0 ? `${bytes / 1024} KB` : `${bytes} bytes`);

const tooLongError = (line: number, maxRecordBytes: number) =>
  new CsvReadError(
    `Line ${line} is longer than ${sizeText(maxRecordBytes)}: this does not look like a CSV file (an unclosed quote?).`,
    line,
  );

/** A parser error in the uploader's words; errors that are not the file's pass through unchanged. */
const toReadError = (error: unknown, line: number, maxRecordBytes: number) => {
  if (!(error instanceof CsvError)) return error;
  switch (error.code) {
    case 'CSV_MAX_RECORD_SIZE':
      return tooLongError(line, maxRecordBytes);
    case 'CSV_QUOTE_NOT_CLOSED':
      return new CsvReadError(`Line ${line}: a quote was not closed.`, line);
    case 'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE':
    case 'CSV_INVALID_CLOSING_QUOTE':
      return new CsvReadError(`Line ${line}: a quoted cell is followed by more text before the next delimiter.`, line);
    default:
      return new CsvReadError(`Line ${line} could not be read as CSV.`, line);
  }
};

type TParserApi = {
  state: { expectedRecordLength?: number; record: unknown[] };
  __onRecord: (push: unknown) => unknown;
};

/**
 * csv-parse 7 builds a CsvError (a stack trace and a JSON copy of the record) for every
 * record whose length differs from the first record's, then drops it under
 * relax_column_count: a file whose header is longer than its rows reads 20× slower (39k
 * rows/s instead of 830k). Setting the expected length to each record's own before the
 * check skips that. (A getter in place of the field costs 4× on every file instead.) If a
 * later csv-parse is laid out differently, this leaves it alone.
 */
const skipRaggedRecordErrors = (parser: Parser) => {
  const api = (parser as unknown as { api?: TParserApi }).api;
  const onRecord = api?.__onRecord;
  if (!api || typeof onRecord !== 'function' || !(api.state && 'expectedRecordLength' in api.state)) return;
  api.__onRecord = function (this: TParserApi, push) {
    this.state.expectedRecordLength = this.state.record.length;
    return onRecord.call(this, push);
  };
};

const toBuffer = (chunk: Buffer | Uint8Array | string) =>
  typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);

/**
 * The parser and its bookkeeping for one file. `read` takes input bytes already converted
 * to UTF-8 and yields full batches; when the file turns out to be broken it yields the
 * rows before the broken line as a last batch, then throws.
 */
const createRowReader = (delimiter: TCsvDelimiter, maxRecordBytes: number, batchSize: number) => {
  const parser = new Parser({
    delimiter,
    // All three line endings at once: auto-discovery keeps the first it meets, and a file
    // that mixes them (pasted together, edited on two systems) would glue lines together.
    record_delimiter: ['\r\n', '\n', '\r'],
    relax_column_count: true,
    // `5" screen` in an unquoted cell is text, not an error.
    relax_quotes: true,
    skip_empty_lines: true,
    trim: true,
    max_record_size: maxRecordBytes,
  });
  skipRaggedRecordErrors(parser);
  // Errors are read from `parser.errored` right after each write; the listener only keeps
  // the stream's later 'error' event from crashing the process.
  parser.on('error', () => {});
  let line = 0;
  let batch: TCsvRow[] = [];
  // The records and empty lines seen so far, and an upper bound on the length of the record
  // being read: csv-parse's max_record_size misses a record of empty cells (50 MB of commas).
  let progress = 0;
  let unfinishedBytes = 0;

  const takeRows = (full: TCsvRow[][]) => {
    for (let cells: string[] | null = parser.read(); cells !== null; cells = parser.read()) {
      line += 1;
      batch.push({ line, cells });
      if (batch.length === batchSize) {
        full.push(batch);
        batch = [];
      }
    }
  };

  const takeLastRows = (full: TCsvRow[][]) => {
    if (batch.length > 0) full.push(batch);
    batch = [];
  };

  /**
   * One write. csv-parse parses a write synchronously, so its records (and its error, if
   * any) are all there when `write` returns; reading them all before the next write keeps
   * the parser from queueing input.
   */
  const readPiece = (piece: Buffer, full: TCsvRow[][]) => {
    parser.write(piece);
    takeRows(full);
    const error = parser.errored;
    if (error) {
      takeLastRows(full);
      return toReadError(error, parser.info.records + 1, maxRecordBytes);
    }
    const now = parser.info.records + parser.info.empty_lines;
    unfinishedBytes = now === progress ? unfinishedBytes + piece.length : piece.length;
    progress = now;
    // The record began at most one piece before the bytes counted, so this is only
    // reached when it is really longer than the limit.
    if (unfinishedBytes > maxRecordBytes + PIECE_BYTES) {
      takeLastRows(full);
      return tooLongError(line + 1, maxRecordBytes);
    }
    return null;
  };

  return {
    *read(bytes: Buffer): Generator<TCsvRow[]> {
      // NUL never occurs in text (and PostgreSQL cannot store it): the rest of the file is binary.
      const nul = bytes.indexOf(0);
      const text = nul === -1 ? bytes : bytes.subarray(0, nul);
      for (let start = 0; start < text.length; start += PIECE_BYTES) {
        const full: TCsvRow[][] = [];
        const error = readPiece(text.subarray(start, start + PIECE_BYTES), full);
        yield* full;
        if (error) throw error;
      }
      if (nul !== -1) {
        const full: TCsvRow[][] = [];
        takeLastRows(full);
        yield* full;
        throw new CsvReadError(NOT_TEXT_MESSAGE);
      }
    },
    async *end(): AsyncGenerator<TCsvRow[]> {
      parser.end();
      try {
        for await (const cells of parser) {
          line += 1;
          batch.push({ line, cells });
        }
      } catch (error) {
        if (batch.length > 0) yield batch;
        throw toReadError(error, parser.info.records + 1, maxRecordBytes);
      }
      if (batch.length > 0) yield batch;
    },
    destroy: () => parser.destroy(),
  };
};

/**
 * Reads any CSV-ish text file: detects encoding (BOM, UTF-16 with/without BOM, UTF-8, else
 * windows-1252) from the first ≤64 KB, decodes streaming (iconv-lite for non-UTF-8), strips
 * the BOM, detects the delimiter (, ; tab |) from the first decoded text, parses with
 * csv-parse and yields batches of rows. Memory stays bounded whatever the file: a record
 * longer than `maxRecordBytes` stops the read with a `CsvReadError` naming its line, and
 * the rows before a broken line are yielded before the error is thrown.
 */
export async function* readCsvBatches(
  input: Readable | AsyncIterable<Buffer>,
  options: TCsvReadOptions = {},
): AsyncGenerator<TCsvRow[]> {
  const { maxRecordBytes = CSV_MAX_RECORD_BYTES, batchSize = DEFAULT_BATCH_SIZE, onBytes, signal } = options;
  const chunks: AsyncIterator<Buffer | Uint8Array | string> = input[Symbol.asyncIterator]();
  let rows: ReturnType<typeof createRowReader> | undefined;
  try {
    const head: Buffer[] = [];
    let headLength = 0;
    let isInputDone = false;
    while (headLength < SAMPLE_BYTES) {
      signal?.throwIfAborted();
      const next = await chunks.next();
      if (next.done) {
        isInputDone = true;
        break;
      }
      const chunk = toBuffer(next.value);
      head.push(chunk);
      headLength += chunk.length;
    }
    const sample = head.length === 1 ? head[0]! : Buffer.concat(head, headLength);
    const { encoding, text, delimiter, bom } = inspectSample(sample);
    if (isBinaryText(text)) throw new CsvReadError(NOT_TEXT_MESSAGE);

    // UTF-8 goes to the parser as it is; iconv-lite's decoders keep a character cut
    // between two chunks for the next one.
    const decoder = encoding === 'utf-8' ? null : iconv.getDecoder(encoding, { stripBOM: false });
    const toUtf8 = (bytes: Buffer) => (decoder ? Buffer.from(decoder.write(bytes)) : bytes);
    rows = createRowReader(delimiter, maxRecordBytes, batchSize);

    for (const batch of rows.read(toUtf8(sample.subarray(bom)))) {
      yield batch;
      signal?.throwIfAborted();
    }
    let bytesRead = sample.length;
    onBytes?.(bytesRead);
    while (!isInputDone) {
      signal?.throwIfAborted();
      const next = await chunks.next();
      if (next.done) break;
      const chunk = toBuffer(next.value);
      for (const batch of rows.read(toUtf8(chunk))) {
        yield batch;
        signal?.throwIfAborted();
      }
      bytesRead += chunk.length;
      onBytes?.(bytesRead);
    }
    signal?.throwIfAborted();
    const rest = decoder?.end();
    if (rest) for (const batch of rows.read(Buffer.from(rest))) yield batch;
    yield* rows.end();
  } finally {
    rows?.destroy();
    // Closes a file stream the caller stopped reading early (or that failed).
    await chunks.return?.();
  }
}

export { safeCell };

/**
 * Writes rows to a CSV file (header first) with `safeCell` on every cell, streaming, in
 * UTF-8 with a byte-order mark so Excel does not read it as Windows-1252. Cells with
 * surrounding whitespace or another delimiter candidate are quoted, so re-importing the
 * report keeps them and still detects the comma.
 */
export const createCsvReportWriter = (path: string, header: string[]): TCsvReportWriter => {
  const stringifier = stringify({ bom: true, quoted_match: [/^\s|\s$/, /[;\t|]/] });
  let failure: unknown;
  const done = pipeline(stringifier, createWriteStream(path));
  done.catch((error: unknown) => {
    failure ??= error;
  });
  stringifier.write(header.map(safeCell));
  return {
    write: async (row) => {
      if (failure) throw failure;
      if (!stringifier.write(row.map(safeCell))) await Promise.race([once(stringifier, 'drain'), done]);
    },
    end: async () => {
      stringifier.end();
      await done;
    },
  };
};
