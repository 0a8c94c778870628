import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMailgunFake } from '../../test/mailgun-fake';
import { createMailgunTransport, mailgunDkimSelector } from './mailgun';
import { createMailgunLists } from './mailgun-lists';

const KEY = 'key-paths-0123456789abcdef';
let mailgun: Awaited<ReturnType<typeof startMailgunFake>>;
beforeAll(async () => {
  mailgun = await startMailgunFake({ key: KEY, domains: [{ name: 'mg.example.com', region: 'us' }] });
});
afterAll(async () => mailgun?.close());

/** The paths the fake was asked for since `from`. */
const pathsSince = (from: number) => mailgun.requests.slice(from).map((request) => `${request.method} ${request.path}`);

describe('values in Mailgun URL paths (issue 43 item 5)', () => {
  it('puts a stored domain that is not a host name into the path as one segment: the key never reaches another endpoint', async () => {
    // A row saved before the form checked its domain.
    const settings = { apiKey: KEY, domain: 'x.example.com/../../../v3/routes?', region: 'us' as const };
    const before = mailgun.requests.length;
    const transport = createMailgunTransport(settings, mailgun.urls);
    await expect(transport.verify!()).rejects.toThrow(/Mailgun has no domain/);
    const [result] = await transport.sendBatch!({ from: 'a@example.com', subject: 'Hi', text: 'Hi' }, [
      { to: 'reader@example.com', variables: {} },
    ]);
    expect(result).toMatchObject({ accepted: false });
    await expect(mailgunDkimSelector(settings, mailgun.urls)).rejects.toThrow(/Mailgun has no domain/);
    await createMailgunLists(settings, mailgun.urls).removeSuppression(settings.domain, 'bounces', 'a@example.com');
    const encoded = encodeURIComponent(settings.domain);
    expect(pathsSince(before)).toEqual([
      `GET /v4/domains/${encoded}`,
      `POST /v3/${encoded}/messages`,
      `GET /v4/domains/${encoded}`,
      `DELETE /v3/${encoded}/bounces/a%40example.com`,
    ]);
    expect(mailgun.requests.some((request) => request.path.startsWith('/v3/routes'))).toBe(false);
  });

  it('keeps list and member addresses in one path segment each: a ? or # in an address cuts nothing off', async () => {
    mailgun.addList('news@mg.example.com', 'News', [{ address: 'x?y@example.com' }, { address: 'x' }]);
    const lists = createMailgunLists({ apiKey: KEY, region: 'us' }, mailgun.urls);
    const before = mailgun.requests.length;
    await lists.deleteMember('news@mg.example.com', 'x?y@example.com');
    expect(pathsSince(before)).toEqual(['DELETE /v3/lists/news%40mg.example.com/members/x%3Fy%40example.com']);
    // The member named `x` is still there: only the address asked for went.
    expect([...mailgun.lists.get('news@mg.example.com')!.members.keys()]).toEqual(['x']);
  });
});
