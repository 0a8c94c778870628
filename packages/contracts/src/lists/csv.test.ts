import { describe, expect, it } from 'vitest';
import {
  decodeSample,
  detectDelimiter,
  detectEncoding,
  fieldKeyOf,
  findEmailHeader,
  firstRowProblem,
  hasCsvExtension,
  isGenericEmail,
  moreText,
} from './csv';
import { cleanEmail, isValidEmail } from './email';
import { LIST_MESSAGES, ZImportMapping } from './lists';

const utf16le = (text: string) => new Uint8Array(Buffer.from(text, 'utf16le'));
const utf16be = (text: string) => {
  const bytes = Buffer.from(text, 'utf16le');
  bytes.swap16();
  return new Uint8Array(bytes);
};

describe('detectEncoding and decodeSample', () => {
  it('reads byte-order marks and drops them', () => {
    const withBom = new Uint8Array([0xef, 0xbb, 0xbf, ...Buffer.from('email\na@b.co')]);
    expect(decodeSample(withBom)).toEqual({ encoding: 'utf-8', text: 'email\na@b.co' });
    expect(decodeSample(new Uint8Array([0xff, 0xfe, ...utf16le('email;name')]))).toEqual({
      encoding: 'utf-16le',
      text: 'email;name',
    });
    expect(decodeSample(new Uint8Array([0xfe, 0xff, ...utf16be('Zoë')])).text).toBe('Zoë');
  });
  it('finds UTF-16 without a mark from its NUL bytes', () => {
    expect(detectEncoding(utf16le('email,name\r\nann@example.com,Ann'))).toBe('utf-16le');
    expect(detectEncoding(utf16be('email,name\r\nann@example.com,Ann'))).toBe('utf-16be');
  });
  it('reads invalid UTF-8 as Windows-1252', () => {
    const latin = new Uint8Array([...Buffer.from('Ren'), 0xe9, ...Buffer.from(',rene@example.com')]);
    expect(decodeSample(latin)).toEqual({ encoding: 'windows-1252', text: 'René,rene@example.com' });
  });
  it('keeps UTF-8 when the sample cuts a character in half', () => {
    const bytes = Buffer.from('Zoë');
    expect(detectEncoding(new Uint8Array(bytes.subarray(0, bytes.length - 1)))).toBe('utf-8');
  });
});

describe('detectDelimiter', () => {
  it('finds commas, semicolons, tabs and pipes', () => {
    expect(detectDelimiter('email,name\na@b.co,A\n')).toBe(',');
    expect(detectDelimiter('email;name;city\na@b.co;A, B;Paris\nc@d.co;C;Rome')).toBe(';');
    expect(detectDelimiter('email\tname\na@b.co\tA')).toBe('\t');
    expect(detectDelimiter('email|name\na@b.co|A')).toBe('|');
  });
  it('ignores delimiters inside quotes', () => {
    expect(detectDelimiter('"Smith, Ann";ann@example.com\n"Doe, Jo";jo@example.com')).toBe(';');
  });
  it('falls back to a comma for a single column', () => {
    expect(detectDelimiter('a@b.co\nc@d.co\n')).toBe(',');
  });
});

describe('headers and fields', () => {
  it('auto-maps a header equal to email ignoring case and spaces', () => {
    expect(findEmailHeader(['Name', ' EMAIL '])).toBe(1);
    expect(findEmailHeader(['Name', 'E-mail address'])).toBeNull();
  });
  it('turns headers into custom field keys', () => {
    expect(fieldKeyOf(' First Name ')).toBe('first_name');
    expect(fieldKeyOf('Company (HQ)')).toBe('company_hq');
  });
  it('accepts csv and txt files only', () => {
    expect(hasCsvExtension('list.CSV')).toBe(true);
    expect(hasCsvExtension('list.txt')).toBe(true);
    expect(hasCsvExtension('list.xlsx')).toBe(false);
    expect(hasCsvExtension('csv')).toBe(false);
  });
  it('refuses a mapping that uses a column twice', () => {
    const result = ZImportMapping.safeParse({
      hasHeaders: true,
      emailColumn: 0,
      nameColumn: 0,
    });
    expect(result.success).toBe(false);
  });
});

describe('addresses', () => {
  it('accepts ordinary addresses and refuses broken ones', () => {
    for (const good of ['ann@example.com', 'first.last+tag@sub.example.co.uk', "o'neil@example.ie"]) {
      expect(isValidEmail(good), good).toBe(true);
    }
    for (const bad of ['', 'ann', 'ann@', '@example.com', 'ann@example', 'a..b@example.com', 'ann@exa mple.com']) {
      expect(isValidEmail(bad), bad).toBe(false);
    }
    expect(isValidEmail(`${'a'.repeat(65)}@example.com`)).toBe(false);
  });
  it('takes the address out of angle brackets, and refuses a mailto: link rather than change it', () => {
    expect(cleanEmail(' <Ann@Example.com> ')).toBe('Ann@example.com');
    expect(isValidEmail(cleanEmail('mailto:ann@example.com'))).toBe(false);
  });
  it('finds generic local parts whatever their case', () => {
    const generic = new Set(['info', 'sales']);
    expect(isGenericEmail('INFO@example.com', generic)).toBe(true);
    expect(isGenericEmail('information@example.com', generic)).toBe(false);
  });
  it('writes the more text only when something is hidden', () => {
    expect(moreText(20, 15)).toBe('...and 5 more');
    expect(moreText(15, 15)).toBe('');
  });
});

describe('the first-row rule (spec §5)', () => {
  const headerless = [
    ['john.smith.example.com', 'John', 'Smith'],
    ['ann@example.com', 'Ann', 'Lee'],
  ];
  it('says the header row must be removed when the first row has no valid email', () => {
    expect(firstRowProblem(headerless, { hasHeaders: false, emailColumn: 0 })).toBe(LIST_MESSAGES.headerRow);
    expect(firstRowProblem([['Email'], ['ann@example.com']], { hasHeaders: false, emailColumn: 0 })).toBe(
      LIST_MESSAGES.headerRow,
    );
  });
  it('refuses to drop a first row that looks like an address as a header', () => {
    expect(firstRowProblem(headerless, { hasHeaders: true, emailColumn: 0 })).toBe(
      LIST_MESSAGES.headerLooksLikeAddress,
    );
    expect(firstRowProblem([['ann@example.com'], ['bob@example.com']], { hasHeaders: true, emailColumn: 0 })).toBe(
      LIST_MESSAGES.headerLooksLikeAddress,
    );
  });
  it('passes real headers and a valid first address', () => {
    const mailchimp = [
      ['Email Address', 'First Name', 'Last Name'],
      ['ann@example.com', 'Ann', 'Lee'],
    ];
    expect(firstRowProblem(mailchimp, { hasHeaders: true, emailColumn: 0 })).toBeNull();
    expect(firstRowProblem(headerless.slice(1), { hasHeaders: false, emailColumn: 0 })).toBeNull();
    expect(firstRowProblem([['Email']], { hasHeaders: true, emailColumn: 0 })).toBe(LIST_MESSAGES.uploadFirst);
  });
});
