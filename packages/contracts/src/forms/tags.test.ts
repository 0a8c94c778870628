import { describe, expect, it } from 'vitest';
import { acceptTag, TAG_MESSAGES } from './tags';

describe('the tag input’s rule (drip spec §5)', () => {
  it('takes what each validator accepts, as read', () => {
    expect(acceptTag([], ' Ann Lee <ann@example.com> ', { validator: 'email' }).tag).toBe('ann@example.com');
    expect(acceptTag([], 'https://acme.test/p?q=1', { validator: 'url' }).tag).toBe('https://acme.test/p?q=1');
    expect(acceptTag([], 'autumn', { validator: 'text' }).tag).toBe('autumn');
    expect(acceptTag([], '0042', { validator: 'digits' }).tag).toBe('0042');
    expect(acceptTag([], '2028-02-29', { validator: 'isodate' }).tag).toBe('2028-02-29');
    expect(acceptTag([], 'anything at all').tag).toBe('anything at all');
  });

  it('refuses what a validator does not, with its reason', () => {
    expect(acceptTag([], 'ann@', { validator: 'email' }).problem).toBe(TAG_MESSAGES.email);
    expect(acceptTag([], 'javascript:alert(1)', { validator: 'url' }).problem).toBe(TAG_MESSAGES.url);
    expect(acceptTag([], 'two\nlines', { validator: 'text' }).problem).toBe(TAG_MESSAGES.text);
    expect(acceptTag([], '12a', { validator: 'digits' }).problem).toBe(TAG_MESSAGES.digits);
    expect(acceptTag([], '2027-02-29', { validator: 'isodate' }).problem).toBe(TAG_MESSAGES.isodate);
    expect(acceptTag([], '   ').problem).toBe(TAG_MESSAGES.text);
  });

  it('refuses a duplicate (an address in any case) and a tag past the limit', () => {
    expect(acceptTag(['ann@example.com'], 'ANN@example.com', { validator: 'email' }).problem).toBe(
      TAG_MESSAGES.duplicate,
    );
    expect(acceptTag(['Autumn'], 'autumn', { validator: 'text' }).tag).toBe('autumn');
    expect(acceptTag(['a', 'b'], 'c', { limit: 2 }).problem).toBe(TAG_MESSAGES.limit);
    expect(acceptTag(['a'], 'c', { limit: 2 }).tag).toBe('c');
  });
});
