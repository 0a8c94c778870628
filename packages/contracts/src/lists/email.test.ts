import { describe, expect, it } from 'vitest';
import {
  canonicalDomain,
  canonicalEmail,
  EMAIL_PROBLEMS,
  isValidEmail,
  looksLikeAddress,
  readEmailCell,
} from './email';

describe('internationalized domains', () => {
  it('accepts U-label and A-label domains and stores the lower-case A-label form', () => {
    expect(canonicalEmail('kunde@bücher.example')).toBe('kunde@xn--bcher-kva.example');
    expect(canonicalEmail('kunde@xn--bcher-kva.example')).toBe('kunde@xn--bcher-kva.example');
    expect(canonicalEmail('Kunde@BÜCHER.example')).toBe('Kunde@xn--bcher-kva.example');
    expect(canonicalEmail('info@пример.рф')).toBe('info@xn--e1afmkfd.xn--p1ai');
    expect(canonicalEmail('info@xn--e1afmkfd.xn--p1ai')).toBe('info@xn--e1afmkfd.xn--p1ai');
    expect(canonicalEmail('info@shop.xn--p1ai')).toBe('info@shop.xn--p1ai');
    expect(canonicalEmail('info@例え。テスト')).toBe('info@xn--r8jz45g.xn--zckzah');
  });
  it('refuses broken domains, whatever their script', () => {
    for (const domain of [
      'xn--zz.com',
      'exa%41mple.com',
      '1.2.3',
      'ex ample.рф',
      'bücher',
      '-a.рф',
      'a..b.рф',
      'пример.рф.',
    ]) {
      expect(canonicalDomain(domain), domain).toBeNull();
    }
  });
});

describe('local parts', () => {
  it('refuses a UTF-8 local part with its own reason (one policy: no SMTPUTF8 mailboxes)', () => {
    expect(readEmailCell('почта@пример.рф')).toEqual({ email: null, problem: EMAIL_PROBLEMS.nonAsciiLocalPart });
    expect(readEmailCell('josé@example.com').problem).toBe(EMAIL_PROBLEMS.nonAsciiLocalPart);
  });
  it('counts RFC 5321 lengths in octets of the stored form', () => {
    expect(isValidEmail(`${'a'.repeat(64)}@example.com`)).toBe(true);
    expect(isValidEmail(`${'a'.repeat(65)}@example.com`)).toBe(false);
    // 63 characters of U-label text are more than 63 octets once encoded: too long a label.
    expect(canonicalDomain(`${'ü'.repeat(60)}.example`)).toBeNull();
    const longDomain = `${Array.from({ length: 5 }, () => 'b'.repeat(60)).join('.')}.com`;
    expect(isValidEmail(`a@${longDomain}`)).toBe(false);
    expect(isValidEmail(`a@${longDomain.slice(61)}`)).toBe(true);
  });
});

describe('cells as exports write them', () => {
  it('extracts <addr>, Name <addr> and "Last, First" <addr> alike', () => {
    expect(readEmailCell('<ann@example.com>').email).toBe('ann@example.com');
    expect(readEmailCell('Ann Lee <ann@example.com>').email).toBe('ann@example.com');
    expect(readEmailCell('"Lee, Ann" <ann@example.com>').email).toBe('ann@example.com');
    expect(readEmailCell(' "Lee, \\"Annie\\"" <kunde@bücher.example> ').email).toBe('kunde@xn--bcher-kva.example');
  });
  it('refuses what is not one address', () => {
    expect(readEmailCell('"Lee, Ann <ann@example.com>').problem).toBe(EMAIL_PROBLEMS.invalid);
    expect(readEmailCell('a@b.com <c@d.com> <e@f.com>').problem).toBe(EMAIL_PROBLEMS.invalid);
    expect(readEmailCell('ann@example.com, bob@example.com').problem).toBe(EMAIL_PROBLEMS.invalid);
    expect(readEmailCell('  ').problem).toBe(EMAIL_PROBLEMS.missing);
  });
  it('refuses a mailto: link instead of changing it silently', () => {
    expect(readEmailCell('mailto:user@example.com')).toEqual({ email: null, problem: EMAIL_PROBLEMS.mailto });
    expect(readEmailCell('<MAILTO:user@example.com>').problem).toBe(EMAIL_PROBLEMS.mailto);
  });
  it('tells a mistyped address from a column title', () => {
    for (const cell of ['john.smith.example.com', 'ann@', 'mailto:x', '<ann>'])
      expect(looksLikeAddress(cell), cell).toBe(true);
    for (const cell of ['Email', 'E-mail Address', 'E-mail 1 - Value', 'email_address', 'Primary Email']) {
      expect(looksLikeAddress(cell), cell).toBe(false);
    }
  });
});
