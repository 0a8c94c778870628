import { LIST_MESSAGES } from '@sendwell/contracts';
import { describe, expect, it } from 'vitest';
import {
  CSV_SAMPLE_BYTES,
  chooseRole,
  columnsOf,
  defaultChoices,
  genericSummary,
  hasHeaderRow,
  importProblem,
  parseCsvSample,
  previewRows,
  readCsvSample,
  toImportMapping,
} from './csv-preview';

const utf8 = (text: string) => new TextEncoder().encode(text);

/** UTF-16 little endian with its byte-order mark, as spreadsheets save "Unicode text". */
const utf16le = (text: string) => {
  const bytes = new Uint8Array(2 + text.length * 2);
  bytes.set([0xff, 0xfe]);
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    bytes[2 + index * 2] = code & 0xff;
    bytes[3 + index * 2] = code >> 8;
  }
  return bytes;
};

const sampleOf = (text: string) => parseCsvSample(utf8(text), true);
const GENERIC = new Set(['info', 'sales']);

describe('parseCsvSample', () => {
  it('reads a file with headers and maps and locks the email column', () => {
    const sample = sampleOf('Name,Email,City\nAda,ada@example.com,London\nGrace,grace@example.com,Arlington\n');
    expect(sample.delimiter).toBe(',');
    expect(hasHeaderRow(sample.rows)).toBe(true);

    const { choices, isEmailLocked } = defaultChoices(sample, true);
    expect(isEmailLocked).toBe(true);
    expect(choices).toEqual([
      { role: 'name', key: '' },
      { role: 'email', key: '' },
      { role: 'field', key: 'city' },
    ]);
    expect(previewRows(sample, true, choices)).toEqual([
      { email: 'ada@example.com', name: 'Ada' },
      { email: 'grace@example.com', name: 'Grace' },
    ]);
    expect(toImportMapping(choices, { hasHeaders: true, removeGeneric: false })).toEqual({
      hasHeaders: true,
      emailColumn: 1,
      nameColumn: 0,
      nameColumns: [0],
      fields: [{ column: 2, key: 'city' }],
      removeGeneric: false,
      verify: false,
    });
  });

  it('reads a file without headers, finding the email column by its addresses but not locking it', () => {
    const sample = sampleOf('Ada,ada@example.com\nGrace,grace@example.com');
    expect(hasHeaderRow(sample.rows)).toBe(false);

    const { choices, isEmailLocked } = defaultChoices(sample, false);
    expect(isEmailLocked).toBe(false);
    expect(choices).toEqual([
      { role: 'skip', key: '' },
      { role: 'email', key: '' },
    ]);
    expect(columnsOf(sample, false).map((column) => column.label)).toEqual(['Column 1', 'Column 2']);
    expect(importProblem(sample, false, choices)).toBeNull();
  });

  it('takes a semicolon-separated file with quoted cells', () => {
    const sample = sampleOf('email;name\n"ada@example.com";"Lovelace; Ada"\n');
    expect(sample.delimiter).toBe(';');
    const { choices } = defaultChoices(sample, true);
    expect(previewRows(sample, true, choices)).toEqual([{ email: 'ada@example.com', name: 'Lovelace; Ada' }]);
  });

  it('decodes a UTF-16 sample', () => {
    const sample = parseCsvSample(utf16le('Email\tName\nzoë@example.com\tZoë\n'), true);
    expect(sample.encoding).toBe('utf-16le');
    expect(sample.delimiter).toBe('\t');
    expect(sample.rows).toEqual([
      ['Email', 'Name'],
      ['zoë@example.com', 'Zoë'],
    ]);
  });

  it('leaves out the row a cut sample ends inside', () => {
    const sample = parseCsvSample(utf8('email\nada@example.com\ngrace@exa'), false);
    expect(sample.rows).toEqual([['email'], ['ada@example.com']]);
    expect(sample.isWholeFile).toBe(false);
  });

  it('reads only the first 256 KB of a large file', async () => {
    const row = 'someone@example.com,Someone\n';
    const file = new File([`email,name\n${row.repeat(20_000)}`], 'big.csv', { type: 'text/csv' });
    expect(file.size).toBeGreaterThan(CSV_SAMPLE_BYTES);

    const sample = await readCsvSample(file);
    expect(sample.isWholeFile).toBe(false);
    expect(sample.rows.length).toBe(Math.floor((CSV_SAMPLE_BYTES - 'email,name\n'.length) / row.length) + 1);
  });
});

describe('importProblem', () => {
  it('asks for a file first', () => {
    expect(importProblem(null, true, [])).toBe(LIST_MESSAGES.uploadFirst);
  });

  it('asks for the email column when none is chosen', () => {
    const sample = sampleOf('contact,name\nada@example.com,Ada');
    const { choices } = defaultChoices(sample, true);
    const columns = columnsOf(sample, true);
    expect(importProblem(sample, true, chooseRole(choices, 0, 'skip', columns))).toBe(LIST_MESSAGES.selectEmail);
  });

  it('refuses a CSV whose first row has no valid email: a header row read as data', () => {
    const sample = sampleOf('Contact,Name\nada@example.com,Ada');
    expect(hasHeaderRow(sample.rows)).toBe(true);
    const { choices } = defaultChoices(sample, false);
    expect(choices[0]?.role).toBe('email');
    expect(importProblem(sample, false, choices)).toBe(LIST_MESSAGES.headerRow);
    expect(importProblem(sample, true, defaultChoices(sample, true).choices)).toBeNull();
  });
});

describe('chooseRole', () => {
  it('moves the email to the chosen column, freeing the one that had it', () => {
    const sample = sampleOf('a@example.com,b@example.com');
    const { choices } = defaultChoices(sample, false);
    const columns = columnsOf(sample, false);
    expect(chooseRole(choices, 1, 'email', columns).map((choice) => choice.role)).toEqual(['skip', 'email']);
  });

  it('gives a custom field a key from the header', () => {
    const sample = sampleOf('email,First Name\nada@example.com,Ada');
    const columns = columnsOf(sample, true);
    const skipped = chooseRole(defaultChoices(sample, true).choices, 1, 'skip', columns);
    expect(chooseRole(skipped, 1, 'field', columns)[1]).toEqual({ role: 'field', key: 'first_name' });
  });
});

describe('genericSummary', () => {
  it('counts generic addresses over every row of the sample', () => {
    const sample = sampleOf('email\ninfo@a.com\nada@example.com\nsales@b.com\nINFO@c.com\nnot-an-address');
    const { choices } = defaultChoices(sample, true);
    expect(genericSummary(sample, true, choices, GENERIC)).toEqual({
      generic: ['info@a.com', 'sales@b.com', 'INFO@c.com'],
      isAllGeneric: false,
    });
  });

  it('says every address is generic only when the sample is the whole file', () => {
    const text = 'email\ninfo@a.com\nsales@b.com\n';
    const whole = sampleOf(text);
    const { choices } = defaultChoices(whole, true);
    expect(genericSummary(whole, true, choices, GENERIC).isAllGeneric).toBe(true);
    expect(genericSummary(parseCsvSample(utf8(text), false), true, choices, GENERIC).isAllGeneric).toBe(false);
  });
});

describe('files people actually have', () => {
  const typoFirst = 'john.smith.example.com,John,Smith\nann@example.com,Ann,Lee\nbob@example.com,Bob,Lee\n';

  it('does not take a headerless file’s mistyped first address for a header row, and says so as the spec does', () => {
    const sample = sampleOf(typoFirst);
    expect(hasHeaderRow(sample.rows)).toBe(false);
    const { choices } = defaultChoices(sample, false);
    expect(choices.map((choice) => choice.role)).toEqual(['email', 'skip', 'skip']);
    expect(columnsOf(sample, false).map((column) => column.label)).toEqual(['Column 1', 'Column 2', 'Column 3']);
    expect(importProblem(sample, false, choices)).toBe(LIST_MESSAGES.headerRow);
    // Ticking the box by hand does not drop the member silently either.
    expect(importProblem(sample, true, defaultChoices(sample, true).choices)).toBe(
      LIST_MESSAGES.headerLooksLikeAddress,
    );
  });

  it('reads Mailchimp, Google Contacts and Outlook headers as headers', () => {
    const exports = [
      'Email Address,First Name,Last Name,MEMBER_RATING\nann@example.com,Ann,Lee,2\n',
      'Name,Given Name,Family Name,E-mail 1 - Type,E-mail 1 - Value\nAnn Lee,Ann,Lee,* Home,ann@example.com\n',
      'First Name,Last Name,E-mail Address,E-mail Display Name\nAnn,Lee,ann@example.com,Ann Lee (ann@example.com)\n',
    ];
    for (const text of exports) {
      const sample = sampleOf(text);
      expect(hasHeaderRow(sample.rows), text).toBe(true);
      const { choices } = defaultChoices(sample, true);
      expect(importProblem(sample, true, choices), text).toBeNull();
      expect(previewRows(sample, true, choices)[0]?.email).toBe('ann@example.com');
      // First Name + Last Name (or the Name column beside them) make the member's Name.
      expect(previewRows(sample, true, choices)[0]?.name, text).toBe('Ann Lee');
    }
  });

  it('joins several Name columns in order, and a column changed to Skip leaves the Name', () => {
    const sample = sampleOf('Email Address,FNAME,LNAME\nann@example.com,Ann,Lee\n');
    const { choices } = defaultChoices(sample, true);
    expect(choices.map((choice) => choice.role)).toEqual(['email', 'name', 'name']);
    expect(toImportMapping(choices, { hasHeaders: true, removeGeneric: false })).toMatchObject({
      nameColumns: [1, 2],
      fields: [],
    });
    const firstOnly = chooseRole(choices, 2, 'field', columnsOf(sample, true));
    expect(previewRows(sample, true, firstOnly)[0]?.name).toBe('Ann');
    expect(toImportMapping(firstOnly, { hasHeaders: true, removeGeneric: false })).toMatchObject({
      nameColumns: [1],
      fields: [{ column: 2, key: 'lname' }],
    });
  });

  it('previews addresses as the list keeps them: names dropped, IDN domains in A-label form', () => {
    const sample = sampleOf('Email\n"""Lee, Ann"" <ann@example.com>"\nkunde@bücher.example\nmailto:bob@example.com\n');
    const { choices } = defaultChoices(sample, true);
    expect(previewRows(sample, true, choices).map((row) => row.email)).toEqual([
      'ann@example.com',
      'kunde@xn--bcher-kva.example',
      'mailto:bob@example.com',
    ]);
    expect(importProblem(sample, true, choices)).toBeNull();
  });
});
