import { describe, expect, it } from 'vitest';
import { EMAIL_PROBLEMS } from '../lists/email';
import { distinctEntries, ENTRY_PROBLEMS, ENTRY_TEXT_MAX, readColumnEntries, readPastedEntries } from './entries';

const emails = (text: string) => readPastedEntries(text).map((entry) => entry.email ?? `✗ ${entry.text}`);

describe('a pasted line', () => {
  it('is one entry: a name with its address gives the address, never three entries', () => {
    expect(emails('John Doe <john@example.com>')).toEqual(['john@example.com']);
    expect(emails('<ann@example.com>')).toEqual(['ann@example.com']);
    expect(emails('"Lee, Ann" <ann@example.com>')).toEqual(['ann@example.com']);
    expect(emails('Doe, John <john@example.com>')).toEqual(['john@example.com']);
  });

  it('never makes an address out of part of an entry', () => {
    expect(readPastedEntries('te st@example.com')).toEqual([
      { line: 1, text: 'te st@example.com', email: null, problem: EMAIL_PROBLEMS.invalid },
    ]);
    expect(emails('ann@example.com bob@example.com')).toEqual(['✗ ann@example.com bob@example.com']);
    expect(emails('write to ann@example.com')).toEqual(['✗ write to ann@example.com']);
  });

  it('holds several addresses only where commas or semicolons stand between complete addresses', () => {
    expect(emails('ann@example.com, bob@example.com; cat@example.com')).toEqual([
      'ann@example.com',
      'bob@example.com',
      'cat@example.com',
    ]);
    expect(emails('"Lee, Ann" <ann@example.com>; Bob Roe <bob@example.com>')).toEqual([
      'ann@example.com',
      'bob@example.com',
    ]);
    expect(emails('Doe, John <john@example.com>; Roe, Jane <jane@example.com>')).toEqual([
      'john@example.com',
      'jane@example.com',
    ]);
    // What is no address between separators is an entry of its own, reported; the others still count.
    expect(emails('ann@example.com, not one, bob@example.com')).toEqual([
      'ann@example.com',
      '✗ not one',
      'bob@example.com',
    ]);
    expect(emails('ann@example.com,,bob@example.com')).toEqual(['ann@example.com', 'bob@example.com']);
  });

  it('leaves punctuation after an address out of it', () => {
    expect(emails('ann@example.com.')).toEqual(['ann@example.com']);
    expect(emails('ann@example.com;')).toEqual(['ann@example.com']);
    expect(emails('<ann@example.com>.')).toEqual(['ann@example.com']);
    expect(emails('ann@example.com!?')).toEqual(['ann@example.com']);
    // The shown text is what was typed.
    expect(readPastedEntries('ann@example.com.')[0]).toMatchObject({
      text: 'ann@example.com.',
      email: 'ann@example.com',
    });
  });

  it('reads each line as its own entry, with its line number; blank lines have none', () => {
    expect(readPastedEntries('ann@example.com\r\n\n  \nnope\u2028bob@example.com')).toEqual([
      { line: 1, text: 'ann@example.com', email: 'ann@example.com', problem: null },
      { line: 4, text: 'nope', email: null, problem: EMAIL_PROBLEMS.invalid },
      { line: 5, text: 'bob@example.com', email: 'bob@example.com', problem: null },
    ]);
  });

  it('makes a line with a control character one invalid entry that can be stored, the rest going on', () => {
    const entries = readPastedEntries('ann@example.com\nb\u0000ob@example.com, cat@example.com\nbob@example.com');
    expect(entries.map((entry) => entry.email)).toEqual(['ann@example.com', null, 'bob@example.com']);
    expect(entries[1]).toEqual({
      line: 2,
      text: 'b\uFFFDob@example.com, cat@example.com',
      email: null,
      problem: `${ENTRY_PROBLEMS.controlCharacter} (U+0000)`,
    });
    expect(readPastedEntries('x\u001bz')[0]!.problem).toContain('U+001B');
  });

  it('keeps an overlong entry short and answers in linear time for a huge line', () => {
    const [long] = readPastedEntries(`${'a'.repeat(5_000)}@example.com`);
    expect(long).toMatchObject({ email: null, problem: ENTRY_PROBLEMS.tooLong });
    expect(long!.text.length).toBe(ENTRY_TEXT_MAX);
    // 200,000 parts of junk and a good address at the end: one invalid entry, one address.
    const line = `${Array.from({ length: 200_000 }, () => 'x').join(',')},ann@example.com`;
    const entries = readPastedEntries(line);
    expect(entries.map((entry) => entry.email)).toEqual([null, 'ann@example.com']);
  });
});

describe('distinct entries', () => {
  it('counts one address once whatever its spelling: IDN and A-label, brackets, case, full-width dots', () => {
    const { addresses, duplicates, invalid } = distinctEntries(
      readPastedEntries(
        [
          'otto@müller.de',
          'otto@xn--mller-kva.de',
          '<a@example.com>',
          'a@example.com',
          'A@EXAMPLE.COM',
          'kunde@例え。テスト',
          'kunde@xn--r8jz45g.xn--zckzah',
          'kunde@例え．テスト',
        ].join('\n'),
      ),
    );
    expect(addresses).toEqual(['otto@xn--mller-kva.de', 'a@example.com', 'kunde@xn--r8jz45g.xn--zckzah']);
    expect(duplicates).toBe(5);
    expect(invalid).toEqual([]);
  });

  it('keeps each entry that is not an address once, with its first line and reason', () => {
    expect(distinctEntries(readPastedEntries('nope\nann@example.com\nNOPE\nmailto:bob@example.com'))).toEqual({
      addresses: ['ann@example.com'],
      invalid: [
        { line: 1, text: 'nope', problem: EMAIL_PROBLEMS.invalid },
        { line: 4, text: 'mailto:bob@example.com', problem: EMAIL_PROBLEMS.mailto },
      ],
      duplicates: 1,
    });
  });
});

describe('a CSV file’s email column', () => {
  const rows = [
    ['Email', 'Name', 'Backup'],
    ['ann@example.com', 'Ann', 'ann.backup@example.com'],
    ['', 'Nobody', 'nobody@example.com'],
    ['Bob <bob@example.com>', 'Bob', ''],
    ['not an address', 'Cat', 'cat@example.com'],
  ];

  it('gives one entry per data row from the mapped column only, and names the rows without an address', () => {
    const { entries, emptyRows } = readColumnEntries(rows, { hasHeaders: true, emailColumn: 0 });
    expect(entries.map((entry) => [entry.line, entry.email])).toEqual([
      [2, 'ann@example.com'],
      [4, 'bob@example.com'],
      [5, null],
    ]);
    // Addresses in other columns are not taken.
    expect(entries.some((entry) => entry.email === 'cat@example.com')).toBe(false);
    expect(emptyRows).toEqual([3]);
  });

  it('reads the header row as data when the file has none', () => {
    const { entries, emptyRows } = readColumnEntries(rows, { hasHeaders: false, emailColumn: 2 });
    expect(entries.map((entry) => entry.email)).toEqual([
      null,
      'ann.backup@example.com',
      'nobody@example.com',
      'cat@example.com',
    ]);
    expect(emptyRows).toEqual([4]);
  });
});
