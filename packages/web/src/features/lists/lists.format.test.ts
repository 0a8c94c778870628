import { describe, expect, it } from 'vitest';
import { buildAccount, buildSmtpAccount } from '../../test/accounts';
import { defaultAccountOf, listDomainOf } from './lists.format';

describe('listDomainOf', () => {
  it('takes the domain the server names', () => {
    expect(listDomainOf(buildSmtpAccount({ listDomain: 'lists.example.org' }))).toBe('lists.example.org');
  });

  it('falls back to the Mailgun domain, or the domain of the sending address', () => {
    expect(listDomainOf(buildAccount({ listDomain: '', domain: 'mg.example.com' }))).toBe('mg.example.com');
    expect(listDomainOf(buildSmtpAccount({ listDomain: '', fromAddress: 'news@shop.example', username: 'x' }))).toBe(
      'shop.example',
    );
    expect(listDomainOf(buildSmtpAccount({ listDomain: '', username: 'me@example.net' }))).toBe('example.net');
  });
});

describe('defaultAccountOf', () => {
  it('prefers the primary account', () => {
    const accounts = [buildAccount({ id: 1 }), buildSmtpAccount({ id: 2, active: true })];
    expect(defaultAccountOf(accounts)?.id).toBe(2);
    expect(defaultAccountOf([buildAccount({ id: 4 })])?.id).toBe(4);
  });
});
