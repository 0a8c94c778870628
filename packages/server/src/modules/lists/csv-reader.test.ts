import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { stringify, type Options as TStringifyOptions } from 'csv-stringify';
import iconv from 'iconv-lite';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  CsvReadError,
  createCsvReportWriter,
  detectFileFormat,
  readCsvBatches,
  safeCell,
  type TCsvReadOptions,
  type TCsvRow,
} from './csv-reader';

/** mulberry32: a small seeded PRNG, so a failing case can be replayed from its seed. */
const seededRandom = (seed: number) => {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
};

const pick = <T>(random: () => number, items: readonly T[]) => items[Math.floor(random() * items.length)]!;

async function* chunked(bytes: Buffer, sizes: number[]) {
  let start = 0;
  for (const size of sizes) {
    if (start >= bytes.length) return;
    yield bytes.subarray(start, start + size);
    start += size;
  }
  if (start < bytes.length) yield bytes.subarray(start);
}

async function* whole(bytes: Buffer) {
  yield bytes;
}

type TReadResult = { rows: TCsvRow[]; batches: TCsvRow[][]; error?: unknown };

const readAll = async (input: AsyncIterable<Buffer> | Readable, options?: TCsvReadOptions): Promise<TReadResult> => {
  const batches: TCsvRow[][] = [];
  try {
    for await (const batch of readCsvBatches(input, options)) batches.push(batch);
    return { rows: batches.flat(), batches };
  } catch (error) {
    return { rows: batches.flat(), batches, error };
  }
};

const readText = async (text: string | Buffer, options?: TCsvReadOptions) => {
  const result = await readAll(whole(Buffer.isBuffer(text) ? text : Buffer.from(text)), options);
  if (result.error) throw result.error;
  return result.rows.map((row) => row.cells);
};

const readError = async (input: string | Buffer | AsyncIterable<Buffer>, options?: TCsvReadOptions) => {
  const source = typeof input === 'string' || Buffer.isBuffer(input) ? whole(Buffer.from(input)) : input;
  const result = await readAll(source, options);
  expect(result.error).toBeInstanceOf(CsvReadError);
  return { error: result.error as CsvReadError, rows: result.rows.map((row) => row.cells) };
};

const utf16le = (text: string, withBom = true) =>
  Buffer.concat([Buffer.from(withBom ? [0xff, 0xfe] : []), Buffer.from(text, 'utf16le')]);
const utf16be = (text: string, withBom = true) =>
  Buffer.concat([Buffer.from(withBom ? [0xfe, 0xff] : []), iconv.encode(text, 'utf-16be')]);

const temporaryFiles: string[] = [];
const temporaryPath = () => {
  const file = path.join(os.tmpdir(), `sendwell-csv-reader-${randomUUID()}.csv`);
  temporaryFiles.push(file);
  return file;
};
afterEach(async () => {
  await Promise.all(temporaryFiles.splice(0).map((file) => rm(file, { force: true })));
});

const peakRss = () => {
  const start = process.memoryUsage.rss();
  let peak = start;
  return {
    sample: () => {
      peak = Math.max(peak, process.memoryUsage.rss());
    },
    growthMb: () => (peak - start) / 1024 / 1024,
  };
};

describe('readCsvBatches: what it reads', () => {
  it('reads quoted cells with delimiters, doubled quotes and line breaks inside the quotes', async () => {
    const text = 'email,note\n"a@x.com","Smith, John"\n"b@x.com","said ""hi"""\n"c@x.com","one\r\ntwo\nthree\rfour"\n';
    expect(await readText(text)).toEqual([
      ['email', 'note'],
      ['a@x.com', 'Smith, John'],
      ['b@x.com', 'said "hi"'],
      ['c@x.com', 'one\r\ntwo\nthree\rfour'],
    ]);
  });

  it.each([
    ['CRLF', 'a,b\r\nc,d\r\ne,f\r\n'],
    ['LF', 'a,b\nc,d\ne,f\n'],
    ['lone CR', 'a,b\rc,d\re,f\r'],
    ['mixed endings', 'a,b\r\nc,d\ne,f\r'],
    ['no final line break', 'a,b\nc,d\ne,f'],
  ])('splits records on %s', async (_name, text) => {
    expect(await readText(text)).toEqual([
      ['a', 'b'],
      ['c', 'd'],
      ['e', 'f'],
    ]);
  });

  it('strips a UTF-8 byte-order mark', async () => {
    expect(await readText('\uFEFFemail,name\nzoë@x.com,Zoë\n')).toEqual([
      ['email', 'name'],
      ['zoë@x.com', 'Zoë'],
    ]);
  });

  it.each([
    ['UTF-16LE with BOM', utf16le('email;name\r\né@x.com;Zoë 😀\r\n')],
    ['UTF-16LE without BOM', utf16le('email;name\r\né@x.com;Zoë 😀\r\n', false)],
    ['UTF-16BE with BOM', utf16be('email;name\r\né@x.com;Zoë 😀\r\n')],
    ['UTF-16BE without BOM', utf16be('email;name\r\né@x.com;Zoë 😀\r\n', false)],
  ])('decodes %s', async (_name, bytes) => {
    expect(await readText(bytes)).toEqual([
      ['email', 'name'],
      ['é@x.com', 'Zoë 😀'],
    ]);
  });

  it('decodes Windows-1252 (an old Excel export)', async () => {
    const bytes = iconv.encode('email;name\r\nrene@x.com;René Müller – €5\r\n', 'windows-1252');
    expect(bytes.includes(0xe9)).toBe(true);
    expect(await readText(bytes)).toEqual([
      ['email', 'name'],
      ['rene@x.com', 'René Müller – €5'],
    ]);
  });

  it.each([
    ['semicolon', ';'],
    ['tab', '\t'],
    ['pipe', '|'],
    ['comma', ','],
  ])('detects a %s delimiter', async (_name, delimiter) => {
    const text = ['email,name,city', 'a@x.com,Ann,Paris', 'b@x.com,Bob,Rome'].join('\n').replaceAll(',', delimiter);
    expect(await readText(`${text}\n`)).toEqual([
      ['email', 'name', 'city'],
      ['a@x.com', 'Ann', 'Paris'],
      ['b@x.com', 'Bob', 'Rome'],
    ]);
  });

  it('keeps empty cells between tabs', async () => {
    expect(await readText('email\tname\tcity\na@x.com\t\tParis\n')).toEqual([
      ['email', 'name', 'city'],
      ['a@x.com', '', 'Paris'],
    ]);
  });

  it('skips empty lines and numbers rows by record', async () => {
    const result = await readAll(whole(Buffer.from('email,name\n\na@x.com,Ann\r\n\r\n   \nb@x.com,Bob\n\n')));
    expect(result.rows).toEqual([
      { line: 1, cells: ['email', 'name'] },
      { line: 2, cells: ['a@x.com', 'Ann'] },
      { line: 3, cells: ['b@x.com', 'Bob'] },
    ]);
  });

  it('trims whitespace around unquoted cells and keeps it inside quotes', async () => {
    expect(await readText('email , name\n  a@x.com\t,  Ann Lee  \n" b@x.com ", " Bob "\n')).toEqual([
      ['email', 'name'],
      ['a@x.com', 'Ann Lee'],
      [' b@x.com ', ' Bob '],
    ]);
  });

  it('keeps a trailing delimiter as an empty cell and rows of different lengths', async () => {
    expect(await readText('email,name,\na@x.com\nb@x.com,Bob,extra,more\nc@x.com,,\n')).toEqual([
      ['email', 'name', ''],
      ['a@x.com'],
      ['b@x.com', 'Bob', 'extra', 'more'],
      ['c@x.com', '', ''],
    ]);
  });

  it('reads formula cells as plain text', async () => {
    expect(
      await readText(
        'email,name\n"=HYPERLINK(""http://evil.test"",""x"")",+1\n"=1+2",@SUM(A1)\n-2,"=cmd|\' /C calc\'!A0"\n',
      ),
    ).toEqual([
      ['email', 'name'],
      ['=HYPERLINK("http://evil.test","x")', '+1'],
      ['=1+2', '@SUM(A1)'],
      ['-2', "=cmd|' /C calc'!A0"],
    ]);
  });

  it('reads rows shorter or longer than the header without building an error for each', async () => {
    // csv-parse builds (and drops) a CsvError per such row unless the reader prevents it: 20× slower.
    const captureStackTrace = vi.spyOn(Error, 'captureStackTrace');
    try {
      const rows = await readText(`email,name,city\n${'a@x.com,Ann\n'.repeat(1000)}b@x.com,Bob,Rome,extra\n`);
      expect(rows).toHaveLength(1002);
      expect(rows.at(-1)).toEqual(['b@x.com', 'Bob', 'Rome', 'extra']);
      expect(captureStackTrace).not.toHaveBeenCalled();
    } finally {
      captureStackTrace.mockRestore();
    }
  });

  it('reads a quote inside an unquoted cell as text', async () => {
    expect(await readText('email,screen\na@x.com,15" laptop\n')).toEqual([
      ['email', 'screen'],
      ['a@x.com', '15" laptop'],
    ]);
  });

  it('reads an empty file as no rows', async () => {
    expect(await readText('')).toEqual([]);
    expect(await readText('\uFEFF')).toEqual([]);
    expect(await readText('\n\r\n\n')).toEqual([]);
  });

  it('yields batches of batchSize rows with running line numbers', async () => {
    const text = `${Array.from({ length: 25 }, (_, index) => `user${index}@x.com,User ${index}`).join('\n')}\n`;
    const result = await readAll(chunked(Buffer.from(text), [7, 100, 3]), { batchSize: 10 });
    expect(result.batches.map((batch) => batch.length)).toEqual([10, 10, 5]);
    expect(result.rows.map((row) => row.line)).toEqual(Array.from({ length: 25 }, (_, index) => index + 1));
    expect(result.rows[24]!.cells).toEqual(['user24@x.com', 'User 24']);
  });

  it('reports the raw bytes read, as a running total', async () => {
    const bytes = utf16le(`${Array.from({ length: 5000 }, (_, index) => `u${index}@x.com,é`).join('\n')}\n`);
    const seen: number[] = [];
    await readAll(
      chunked(
        bytes,
        Array.from({ length: 200 }, () => 999),
      ),
      { onBytes: (bytesRead) => seen.push(bytesRead) },
    );
    expect(seen.length).toBeGreaterThan(10);
    expect(seen.every((value, index) => index === 0 || value > seen[index - 1]!)).toBe(true);
    expect(seen.at(-1)).toBe(bytes.length);
  });

  it('reads a file stream and closes it when the reader stops early', async () => {
    const file = temporaryPath();
    await writeFile(file, `email\n${Array.from({ length: 50_000 }, (_, index) => `u${index}@x.com`).join('\n')}\n`);
    const stream = createReadStream(file, { highWaterMark: 4096 });
    let rows = 0;
    for await (const batch of readCsvBatches(stream, { batchSize: 100 })) {
      rows += batch.length;
      if (rows >= 300) break;
    }
    expect(rows).toBe(300);
    expect(stream.destroyed).toBe(true);
    const whole = await readAll(createReadStream(file));
    expect(whole.rows).toHaveLength(50_001);
  });

  it('stops when the signal aborts', async () => {
    const text = Buffer.from(`${Array.from({ length: 10_000 }, (_, index) => `u${index}@x.com`).join('\n')}\n`);
    const aborted = new AbortController();
    aborted.abort();
    expect((await readAll(whole(text), { signal: aborted.signal })).error).toMatchObject({ name: 'AbortError' });

    const controller = new AbortController();
    const sizes = Array.from({ length: 100 }, () => 1000);
    let batches = 0;
    const reading = (async () => {
      for await (const _batch of readCsvBatches(chunked(text, sizes), { batchSize: 50, signal: controller.signal })) {
        batches += 1;
        if (batches === 2) controller.abort();
      }
    })();
    await expect(reading).rejects.toMatchObject({ name: 'AbortError' });
    expect(batches).toBe(2);
  });
});

describe('readCsvBatches: what it refuses', () => {
  it('refuses a binary file up front', async () => {
    const png = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]),
      Buffer.from('IHDR,,,\n'),
    ]);
    for (const bytes of [
      png,
      Buffer.from('email,name\na@x.com,\u0001\u0002\u0003\u0004\u0005\u0006\u0007\u0008\u000e\u000f'),
    ]) {
      const { error, rows } = await readError(bytes);
      expect(error.message).toBe('This file is not a text file: please upload a CSV export.');
      expect(rows).toEqual([]);
    }
  });

  it('refuses a NUL byte after the first 64 KB, after the rows before it', async () => {
    const head = `email\n${Array.from({ length: 10_000 }, (_, index) => `u${index}@x.com`).join('\n')}\n`;
    const { error, rows } = await readError(Buffer.concat([Buffer.from(head), Buffer.from([0, 1, 2, 3])]));
    expect(error.message).toBe('This file is not a text file: please upload a CSV export.');
    expect(rows.length).toBeGreaterThan(9000);
    expect(rows.slice(0, 2)).toEqual([['email'], ['u0@x.com']]);
  });

  it('names the line of a quote that is never closed, after yielding the rows before it', async () => {
    const { error, rows } = await readError('email,name\na@x.com,Ann\n\nb@x.com,"Bob\nc@x.com,Cy\n');
    expect(error.message).toBe('Line 3: a quote was not closed.');
    expect(error.line).toBe(3);
    expect(rows).toEqual([
      ['email', 'name'],
      ['a@x.com', 'Ann'],
    ]);
  });

  it('names the line of text after a closing quote', async () => {
    const { error } = await readError('email,name\n"a@x.com" junk,Ann\n');
    expect(error.message).toBe('Line 2: a quoted cell is followed by more text before the next delimiter.');
  });

  it('stops at an unclosed quote swallowing megabytes, naming its line', async () => {
    const junk = Buffer.alloc(2 * 1024 * 1024, 'abc,def\n');
    const { error, rows } = await readError(
      chunked(Buffer.concat([Buffer.from('email,name\na@x.com,"Ann\n'), junk]), Array(10_000).fill(1000)),
    );
    expect(error.message).toBe('Line 2 is longer than 64 KB: this does not look like a CSV file (an unclosed quote?).');
    expect(error.line).toBe(2);
    expect(rows).toEqual([['email', 'name']]);
  });

  it.each([
    ['no line breaks', 'abc,def;ghi '],
    ['only commas', ','],
    ['only tabs', '\t'],
  ])('stops at a file with %s, naming line 1', async (_name, unit) => {
    const bytes = Buffer.alloc(5 * 1024 * 1024, unit);
    const { error } = await readError(chunked(bytes, Array(100).fill(64 * 1024)));
    expect(error.message).toBe('Line 1 is longer than 64 KB: this does not look like a CSV file (an unclosed quote?).');
  });

  it('applies a smaller maxRecordBytes', async () => {
    const { error, rows } = await readError(`email\n${'x'.repeat(100)}\n${'y'.repeat(2000)}\n`, {
      maxRecordBytes: 1000,
    });
    expect(error.message).toBe(
      'Line 3 is longer than 1000 bytes: this does not look like a CSV file (an unclosed quote?).',
    );
    expect(rows).toEqual([['email'], ['x'.repeat(100)]]);
  });
});

describe('detectFileFormat', () => {
  it.each([
    ['UTF-8 with BOM', Buffer.from('\uFEFFemail;name\na;b\n'), { encoding: 'utf-8', delimiter: ';', bom: 3 }],
    ['UTF-8', Buffer.from('email|name\na|b\n'), { encoding: 'utf-8', delimiter: '|', bom: 0 }],
    ['UTF-16LE with BOM', utf16le('email\tname\na\tb\n'), { encoding: 'utf-16le', delimiter: '\t', bom: 2 }],
    ['UTF-16BE without BOM', utf16be('email,name\na,b\n', false), { encoding: 'utf-16be', delimiter: ',', bom: 0 }],
    [
      'Windows-1252',
      iconv.encode('email;name\né;è\n', 'windows-1252'),
      { encoding: 'windows-1252', delimiter: ';', bom: 0 },
    ],
  ])('detects %s', (_name, sample, expected) => {
    expect(detectFileFormat(sample)).toEqual(expected);
  });
});

describe('readCsvBatches: properties (R17)', () => {
  const PIECES = [
    'a',
    'Zz',
    '0',
    '42',
    ' ',
    '"',
    '""',
    ',',
    ';',
    '\t',
    '|',
    '\r',
    '\n',
    '\r\n',
    'é',
    'ü',
    '中文',
    '😀',
    '\u00a0',
    "'",
    'x@y.com',
    '=',
    '+',
    '-',
    '@',
  ];
  const FORMULA_PREFIXES = ['=', '+', '-', '@', '=HYPERLINK("http://x")'];

  const randomCell = (random: () => number) => {
    let cell = random() < 0.15 ? pick(random, FORMULA_PREFIXES) : '';
    const length = Math.floor(random() * 8);
    for (let index = 0; index < length; index += 1) cell += pick(random, PIECES);
    return cell;
  };

  const stringifyRecords = (records: string[][], options: TStringifyOptions) =>
    new Promise<string>((resolve, reject) =>
      stringify(records, options, (error, output) => (error ? reject(error) : resolve(output))),
    );

  const randomSizes = (random: () => number, total: number) => {
    const sizes: number[] = [];
    // Small chunks first, so the byte-order mark and the first characters are cut too.
    for (let index = 0; index < 6; index += 1) sizes.push(1 + Math.floor(random() * 3));
    const largest = pick(random, [4, 64, 1024, 70_000]);
    for (let sum = 0; sum < total; ) {
      const size = 1 + Math.floor(random() * largest);
      sizes.push(size);
      sum += size;
    }
    return sizes;
  };

  it('returns exactly the records csv-stringify wrote, whatever the delimiter, encoding and chunking', async () => {
    for (let seed = 1; seed <= 300; seed += 1) {
      const random = seededRandom(seed);
      const columns = 2 + Math.floor(random() * 4);
      const delimiter = pick(random, [',', ';', '\t', '|']);
      // A header row of plain names, as real files have: it is what tells the delimiter
      // apart from the other candidates that random cells hold unquoted.
      const records = [Array.from({ length: columns }, (_, index) => `column ${index}`)];
      const rowCount = Math.floor(random() * 40);
      for (let row = 0; row < rowCount; row += 1) {
        records.push(Array.from({ length: columns }, () => randomCell(random)));
      }
      const text = await stringifyRecords(records, {
        delimiter,
        record_delimiter: pick(random, ['unix', 'windows', 'mac'] as const),
        // Without it csv-stringify leaves \n unquoted when the record delimiter is \r.
        quote_record_delimiter: true,
        quoted: random() < 0.2,
        // Surrounding whitespace is trimmed from unquoted cells on import, so it is quoted.
        quoted_match: /^\s|\s$/,
        eof: random() < 0.8,
      });
      const encoding = pick(random, ['utf-8', 'utf-8 with BOM', 'utf-16le with BOM'] as const);
      const bytes =
        encoding === 'utf-16le with BOM'
          ? utf16le(text)
          : Buffer.from(encoding === 'utf-8 with BOM' ? `\uFEFF${text}` : text);
      const batchSize = pick(random, [1, 3, 2000]);
      const result = await readAll(chunked(bytes, randomSizes(random, bytes.length)), { batchSize });

      const context = { seed, delimiter, encoding, text };
      expect({ ...context, error: result.error }).toEqual({ ...context, error: undefined });
      expect({ ...context, rows: result.rows.map((row) => row.cells) }).toEqual({ ...context, rows: records });
      expect(result.rows.map((row) => row.line)).toEqual(records.map((_, index) => index + 1));
    }
  });

  it('gives the same rows however a tricky file is cut into chunks', async () => {
    const tricky =
      '\uFEFFemail;name;note\r\n' +
      '"a@x.com";"Smith; John";"said ""hi"""\r\n' +
      '\r\n' +
      'b@x.com ; Zoë 😀 ;"line1\nline2\r\nline3"\n' +
      'c@x.com;=HYPERLINK("http://x");\r' +
      'd@x.com\n' +
      '  \n' +
      '"e@x.com";;;extra,1|2\r\n';
    const expected = [
      ['email', 'name', 'note'],
      ['a@x.com', 'Smith; John', 'said "hi"'],
      ['b@x.com', 'Zoë 😀', 'line1\nline2\r\nline3'],
      ['c@x.com', '=HYPERLINK("http://x")', ''],
      ['d@x.com'],
      ['e@x.com', '', '', 'extra,1|2'],
    ];
    const random = seededRandom(17);
    for (const bytes of [Buffer.from(tricky), utf16le(tricky.slice(1)), utf16be(tricky.slice(1))]) {
      expect(await readText(bytes)).toEqual(expected);
      for (let run = 0; run < 100; run += 1) {
        const largest = pick(random, [1, 2, 5, 40]);
        const sizes = Array.from({ length: bytes.length }, () => 1 + Math.floor(random() * largest));
        const result = await readAll(chunked(bytes, sizes), { batchSize: 1 + Math.floor(random() * 4) });
        expect(result.error).toBeUndefined();
        expect(result.rows.map((row) => row.cells)).toEqual(expected);
        expect(result.rows.map((row) => row.line)).toEqual([1, 2, 3, 4, 5, 6]);
      }
    }
  });

  /** `megabytes` of pseudo-random bytes, 64 KB at a time, after `head`; `clean` edits each chunk. */
  async function* junk(head: string, megabytes: number, seed: number, clean?: (chunk: Buffer) => void) {
    yield Buffer.from(head);
    const random = seededRandom(seed);
    for (let index = 0; index < megabytes * 16; index += 1) {
      const chunk = Buffer.allocUnsafe(64 * 1024);
      const words = new Uint32Array(chunk.buffer, chunk.byteOffset, chunk.length / 4);
      for (let word = 0; word < words.length; word += 1) words[word] = random() * 4294967296;
      clean?.(chunk);
      yield chunk;
    }
  }
  const replaceBytes = (from: number[], to: number) => {
    const table = Uint8Array.from({ length: 256 }, (_, byte) => (from.includes(byte) ? to : byte));
    return (chunk: Buffer) => {
      for (let index = 0; index < chunk.length; index += 1) chunk[index] = table[chunk[index]!]!;
    };
  };
  const printableWithoutQuotes = (chunk: Buffer) => {
    for (let index = 0; index < chunk.length; index += 1) {
      const byte = 0x20 + (chunk[index]! % 95);
      chunk[index] = byte === 0x22 ? 0x27 : byte;
    }
  };
  // Longer than the 64 KB sample, so the junk is only met while streaming.
  const validHead = `email,name\n${Array.from({ length: 5000 }, (_, index) => `u${index}@x.com,U ${index}`).join('\n')}\n`;

  const NOT_TEXT = /^This file is not a text file/;
  it.each([
    ['random bytes', '', undefined, NOT_TEXT],
    ['random bytes after a valid first 64 KB', validHead, undefined, NOT_TEXT],
    ['random bytes without NUL after a valid first 64 KB', validHead, replaceBytes([0], 0x20), /^Line \d+/],
    ['printable text without quotes or line breaks', '', printableWithoutQuotes, /^Line 1 is longer than 64 KB/],
    ['random bytes without NUL or quotes after a valid first 64 KB', validHead, replaceBytes([0, 0x22], 0x20), null],
  ])('reads 50 MB of %s to a CsvReadError or to the end, in bounded memory', async (_name, head, clean, message) => {
    const memory = peakRss();
    let bytesRead = 0;
    let error: unknown;
    try {
      for await (const _batch of readCsvBatches(junk(head, 50, 99, clean), {
        onBytes: (bytes) => {
          bytesRead = bytes;
          memory.sample();
        },
      })) {
        memory.sample();
      }
    } catch (caught) {
      error = caught;
    }
    if (message) {
      expect(error).toBeInstanceOf(CsvReadError);
      expect((error as CsvReadError).message).toMatch(message);
    } else {
      expect({ error, bytesRead }).toEqual({ error: undefined, bytesRead: Buffer.byteLength(head) + 50 * 1024 * 1024 });
    }
    expect(memory.growthMb()).toBeLessThan(150);
  });

  it('reads a 1,000,000-row file to the end in bounded memory', async () => {
    async function* generated(rows: number) {
      yield Buffer.from('email,name\n');
      for (let row = 0; row < rows; ) {
        let text = '';
        for (let index = 0; index < 2000 && row < rows; index += 1, row += 1)
          text += `user${row}@example.com,Name ${row}\n`;
        yield Buffer.from(text);
      }
    }
    const memory = peakRss();
    let count = 0;
    let last: TCsvRow | undefined;
    for await (const batch of readCsvBatches(generated(1_000_000))) {
      count += batch.length;
      last = batch.at(-1);
      memory.sample();
    }
    expect(count).toBe(1_000_001);
    expect(last).toEqual({ line: 1_000_001, cells: ['user999999@example.com', 'Name 999999'] });
    expect(memory.growthMb()).toBeLessThan(150);
  });
});

describe('CSV export', () => {
  it('escapes cells that begin with = + - @ tab or CR, and leaves the others', () => {
    expect(['=1+1', '+1', '-2', '@SUM(A1)', '\tx', '\rx', '=HYPERLINK("http://x")'].map(safeCell)).toEqual([
      "'=1+1",
      "'+1",
      "'-2",
      "'@SUM(A1)",
      "'\tx",
      "'\rx",
      `'=HYPERLINK("http://x")`,
    ]);
    expect(['', 'a=b', 'x@y.com', ' =1', "'=1", '1-2', 'é'].map(safeCell)).toEqual([
      '',
      'a=b',
      'x@y.com',
      ' =1',
      "'=1",
      '1-2',
      'é',
    ]);
  });

  it('writes a report that reads back with the same cells, formulas escaped', async () => {
    const file = temporaryPath();
    const header = ['line', 'reason', 'row'];
    const rows = [
      ['2', 'Invalid email', '=HYPERLINK("http://evil.test","click")', 'a,b'],
      ['3', 'Missing email', '+1', '-1', '@x', '\tTab', '\rCR'],
      ['4', 'Generic address', 'info@x.com', ' spaced ', 'semi;colon', 'pi|pe', 'quote "q"', 'multi\nline'],
      ['5', 'Zoë 😀', ''],
    ];
    const writer = createCsvReportWriter(file, header);
    for (const row of rows) await writer.write(row);
    await writer.end();

    const raw = await readFile(file);
    expect(raw.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    expect(raw.toString()).toContain(`"'=HYPERLINK(""http://evil.test"",""click"")"`);
    const back = await readAll(createReadStream(file));
    expect(back.error).toBeUndefined();
    expect(back.rows.map((row) => row.cells)).toEqual([header, ...rows].map((row) => row.map(safeCell)));
  });

  it('waits for the file when writing faster than the disk, and keeps every row', async () => {
    const file = temporaryPath();
    const writer = createCsvReportWriter(file, ['line', 'reason']);
    for (let line = 0; line < 5000; line += 1) await writer.write([String(line), 'x'.repeat(400)]);
    await writer.end();
    const back = await readAll(createReadStream(file));
    expect(back.rows).toHaveLength(5001);
    expect(back.rows.at(-1)!.cells).toEqual(['4999', 'x'.repeat(400)]);
  });

  it('rejects when the file cannot be written', async () => {
    const writer = createCsvReportWriter(path.join(os.tmpdir(), `missing-${randomUUID()}`, 'report.csv'), ['line']);
    await expect(writer.end()).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(writer.write(['1'])).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
