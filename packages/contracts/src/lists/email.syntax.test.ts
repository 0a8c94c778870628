import { describe, expect, it } from 'vitest';
import { canonicalEmail, readEmailCell } from './email';

/**
 * The address rules the list import and email verification share (one implementation),
 * case by case: what a list keeps (in its stored form) and what it refuses. The rules are
 * RFC 5321's dot-atom and host names, stored ASCII (IDN as A-labels); quoted local parts
 * and address literals are refused on purpose (no provider list keeps them).
 */
const VALID: [string, string][] = [
  ['ann@example.com', 'ann@example.com'],
  ['Ann@Example.COM', 'Ann@example.com'],
  ['  ann@example.com  ', 'ann@example.com'],
  ['first.last@example.com', 'first.last@example.com'],
  ['first.middle.last@example.com', 'first.middle.last@example.com'],
  ['a@example.com', 'a@example.com'],
  ['a.b.c.d@example.com', 'a.b.c.d@example.com'],
  ['user+tag@example.com', 'user+tag@example.com'],
  ['user+tag+more@example.com', 'user+tag+more@example.com'],
  ['user-name@example.com', 'user-name@example.com'],
  ['user_name@example.com', 'user_name@example.com'],
  ['0123456789@example.com', '0123456789@example.com'],
  ["o'brien@example.ie", "o'brien@example.ie"],
  ['x!y@example.com', 'x!y@example.com'],
  ['x#y@example.com', 'x#y@example.com'],
  ['x$y@example.com', 'x$y@example.com'],
  ['x%y@example.com', 'x%y@example.com'],
  ['x&y@example.com', 'x&y@example.com'],
  ['x*y@example.com', 'x*y@example.com'],
  ['x/y@example.com', 'x/y@example.com'],
  ['x=y@example.com', 'x=y@example.com'],
  ['x?y@example.com', 'x?y@example.com'],
  ['x^y@example.com', 'x^y@example.com'],
  ['x`y@example.com', 'x`y@example.com'],
  ['x{y}@example.com', 'x{y}@example.com'],
  ['x|y@example.com', 'x|y@example.com'],
  ['x~y@example.com', 'x~y@example.com'],
  ['ann@mail.example.com', 'ann@mail.example.com'],
  ['ann@a.b.c.d.example.com', 'ann@a.b.c.d.example.com'],
  ['ann@example-domain.com', 'ann@example-domain.com'],
  ['ann@ex--ample.com', 'ann@ex--ample.com'],
  ['ann@123.example.com', 'ann@123.example.com'],
  ['ann@example.museum', 'ann@example.museum'],
  ['ann@example.co.uk', 'ann@example.co.uk'],
  ['ann@x.io', 'ann@x.io'],
  ['ann@EXAMPLE.org', 'ann@example.org'],
  ['ann@münchen.de', 'ann@xn--mnchen-3ya.de'],
  ['ann@MÜNCHEN.DE', 'ann@xn--mnchen-3ya.de'],
  ['ann@bücher.example', 'ann@xn--bcher-kva.example'],
  ['ann@пример.рф', 'ann@xn--e1afmkfd.xn--p1ai'],
  ['ann@例え.テスト', 'ann@xn--r8jz45g.xn--zckzah'],
  ['ann@xn--mnchen-3ya.de', 'ann@xn--mnchen-3ya.de'],
  ['ann@example。com', 'ann@example.com'],
  ['ann@example.xn--p1ai', 'ann@example.xn--p1ai'],
  ['ann@δοκιμή.gr', 'ann@xn--jxalpdlp.gr'],
  ['Ann Lee <ann@example.com>', 'ann@example.com'],
  ['"Lee, Ann" <ann@example.com>', 'ann@example.com'],
  ['<ann@example.com>', 'ann@example.com'],
  ['ann.lee+news@sub.mail.example.org', 'ann.lee+news@sub.mail.example.org'],
  ['1@example.com', '1@example.com'],
  ['ann@example.travel', 'ann@example.travel'],
  ['ann@example.technology', 'ann@example.technology'],
  ['ann@a1.b2.c3.com', 'ann@a1.b2.c3.com'],
  ['ann@ñandú.ar', 'ann@xn--and-6ma2c.ar'],
];

const INVALID: string[] = [
  '',
  ' ',
  'ann',
  'ann@',
  '@example.com',
  'ann@@example.com',
  'ann@example',
  'ann@.example.com',
  'ann@example..com',
  'ann@example.com.',
  'ann@-example.com',
  'ann@example-.com',
  'ann@exa_mple.com',
  'ann@exa mple.com',
  'ann@example.c',
  'ann@example.1com',
  'ann@example.123',
  'ann@[192.168.0.1]',
  'ann@[IPv6:2001:db8::1]',
  'ann@192.168.0.1',
  '.ann@example.com',
  'ann.@example.com',
  'an..n@example.com',
  'ann lee@example.com',
  '"ann lee"@example.com',
  '"ann"@example.com',
  'ann(comment)@example.com',
  'ann,lee@example.com',
  'ann;lee@example.com',
  'ann:lee@example.com',
  'ann<lee@example.com',
  'ann>lee@example.com',
  'ann[lee]@example.com',
  'ann\\lee@example.com',
  'ann"lee@example.com',
  'jöhn@example.com',
  'ユーザー@example.com',
  'mailto:ann@example.com',
  'MAILTO:ann@example.com',
  'ann@exam%ple.com',
  'ann@exam/ple.com',
  'ann@exam:ple.com',
  'ann@xn--.com',
  'ann@xn--zz-.com',
  'Ann <ann@example.com',
  'Ann ann@example.com>',
  'A"nn <ann@example.com>',
  'ann@example.com <bob@example.com>',
  'ann@exa\nmple.com',
  'ann\t@example.com',
  'ann@example.com@example.com',
  'ann@example,com',
  'ann@example;com',
  'ann@exam\u00a0ple.com',
  'ann@-.com',
  'ann@com',
];

// Octet limits (RFC 5321): local part ≤ 64, each label ≤ 63, the whole address ≤ 254.
const local = (length: number) => 'a'.repeat(length);
const label = (length: number) => 'b'.repeat(length);
const LIMITS: [string, boolean][] = [
  [`${local(63)}@example.com`, true],
  [`${local(64)}@example.com`, true],
  [`${local(65)}@example.com`, false],
  [`${local(100)}@example.com`, false],
  [`ann@${label(62)}.com`, true],
  [`ann@${label(63)}.com`, true],
  [`ann@${label(64)}.com`, false],
  [`ann@${label(63)}.${label(63)}.${label(63)}.${label(50)}.com`, true],
  [`${local(64)}@${label(63)}.${label(63)}.${label(55)}.com`, true],
  [`${local(64)}@${label(63)}.${label(63)}.${label(60)}.com`, false],
  [`ann@${label(1)}.com`, true],
  [`ann@${'c'.repeat(10)}.${'d'.repeat(63)}`, true],
  [`ann@${'c'.repeat(10)}.${'d'.repeat(64)}`, false],
];

// Every atext character alone and inside, and characters that never are.
const ATEXT = "!#$%&'*+/=?^_`{|}~-";
const SPECIALS = '()<>[]:;,\\" ';

describe('email address syntax (the import and verification share it)', () => {
  it.each(VALID)('keeps %j as %j', (input, stored) => {
    expect(readEmailCell(input).email).toBe(stored);
  });

  it.each(INVALID)('refuses %j', (input) => {
    expect(canonicalEmail(input)).toBeNull();
  });

  it.each(LIMITS)('applies the octet limits to %#', (input, isKept) => {
    expect(canonicalEmail(input) !== null).toBe(isKept);
  });

  it.each([...ATEXT])('takes the atext character %j in a local part', (character) => {
    expect(canonicalEmail(`a${character}b@example.com`)).toBe(`a${character}b@example.com`);
  });

  it.each([...SPECIALS])('refuses the special %j in a local part', (character) => {
    expect(canonicalEmail(`a${character}b@example.com`)).toBeNull();
  });

  it('counts at least 150 cases', () => {
    expect(VALID.length + INVALID.length + LIMITS.length + ATEXT.length + SPECIALS.length).toBeGreaterThanOrEqual(150);
  });
});
