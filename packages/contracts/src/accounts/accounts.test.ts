import { describe, expect, it } from 'vitest';
import { ACCOUNT_MESSAGES, mailgunDomainOf, ZAccountForm } from './accounts';

describe('a Mailgun domain (issue 43 item 5)', () => {
  it('is a host name, kept in lower-case A-labels', () => {
    expect(mailgunDomainOf('mg.example.com')).toBe('mg.example.com');
    expect(mailgunDomainOf(' MG.Example.COM ')).toBe('mg.example.com');
    expect(mailgunDomainOf('mg.bücher.example')).toBe('mg.xn--bcher-kva.example');
    expect(mailgunDomainOf('mg.xn--bcher-kva.example')).toBe('mg.xn--bcher-kva.example');
    expect(mailgunDomainOf('почта.пример.рф')).toBe('xn--80a1acny.xn--e1afmkfd.xn--p1ai');
  });

  it('refuses anything a URL would read as more than a host: paths, queries, fragments, escapes, ports, users', () => {
    for (const domain of [
      'x.example.com/../../../v3/routes?',
      'w.example.com#frag',
      'mg%2Eexample.com',
      'mg.example.com%2F..',
      'mg.example.com:443',
      'api@mg.example.com',
      'mg.example.com/',
      'mg.example.com?',
      'mg example.com',
      'mg\\example.com',
      'localhost',
      '127.0.0.1',
      '[::1]',
      '-mg.example.com',
      'mg..example.com',
      'mg.example.com.',
      'xn--zz.example',
      `${'a'.repeat(64)}.example.com`,
      `${'abcdefghij.'.repeat(23)}com`,
      '',
    ]) {
      expect(mailgunDomainOf(domain), domain).toBeNull();
    }
  });

  it('is checked by the account form, which stores the A-label form', () => {
    const form = { name: 'News', provider: 'mailgun', apiKey: 'key-1', region: 'us' } as const;
    const refused = ZAccountForm.safeParse({ ...form, domain: 'w.example.com#frag' });
    expect(refused.error?.issues).toEqual([
      expect.objectContaining({ path: ['domain'], message: ACCOUNT_MESSAGES.domainInvalid }),
    ]);
    expect(ZAccountForm.parse({ ...form, domain: 'Mg.Bücher.Example' }).domain).toBe('mg.xn--bcher-kva.example');
    // Only Mailgun's domain is read: an SMTP form ignores the field as before.
    expect(
      ZAccountForm.safeParse({
        name: 'Office',
        provider: 'smtp',
        driver: 'smtp',
        username: 'me',
        host: 'smtp.example.com',
        port: 587,
        encryption: 'tls',
      }).success,
    ).toBe(true);
  });
});
