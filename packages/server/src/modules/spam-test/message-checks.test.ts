import { describe, expect, it } from 'vitest';
import { cpuClock } from '../../../test/cpu-clock';
import { analyseContent, readOwnChecks } from './analysis';
import { mimeLeaves, readDate, readHtml, readMailbox } from './message-checks';

/**
 * The readers under Sendwell's own header and content checks: addresses, dates, HTML and
 * MIME read as receivers read them, and in time that grows with the input, not its square,
 * whatever a stranger sends to the test mailbox (R24).
 */

describe('reading a From as RFC 5322 and Gmail read it', () => {
  it.each([
    ['news@good.test', 'news@good.test'],
    ['Good News <news@good.test>', 'news@good.test'],
    ['"News, Good" <news@good.test>', 'news@good.test'],
    ['=?UTF-8?Q?Caf=C3=A9?= <cafe@good.test>', 'cafe@good.test'],
    ['news@good.test (Good News)', 'news@good.test'],
    ['"odd local"@good.test', '"odd local"@good.test'],
  ])('takes %s', (value, address) => {
    expect(readMailbox(value)).toEqual({ address, problem: null });
  });

  it.each([
    ['"News" <news letter@good.test>', /space/],
    ['News <news@good.test', /never closed/],
    ['a@good.test, b@good.test', /more than one/],
    ['News, Letter <news@good.test>', /more than one/],
    ['News <news@localhost>', /not a domain name/],
    ['News <newsgood.test>', /no @/],
    ['News@Home <news@good.test>', /unquoted "@"/],
    ['', /no address/],
  ])('refuses %s, saying why', (value, problem) => {
    const read = readMailbox(value);
    expect(read.address).toBeNull();
    expect(read.problem).toMatch(problem);
  });
});

describe('reading a Date as mail writes it', () => {
  it('reads the RFC 5322 form with zones, names and comments', () => {
    expect(readDate('Tue, 4 Nov 2025 09:30:00 +0100')?.toISOString()).toBe('2025-11-04T08:30:00.000Z');
    expect(readDate('4 Nov 2025 09:30 GMT')?.toISOString()).toBe('2025-11-04T09:30:00.000Z');
    expect(readDate('Tue, 04 Nov 25 09:30:00 EST (Eastern)')?.toISOString()).toBe('2025-11-04T14:30:00.000Z');
  });

  it.each([
    'yesterday around noon',
    '2025-11-04T09:30:00Z',
    '31 Feb 2025 09:30:00 +0000',
    'Tue, 4 Nov 2025 25:30:00 +0000',
  ])('refuses %s', (value) => {
    expect(readDate(value)).toBeNull();
  });
});

describe('reading HTML', () => {
  it('finds links with their text, scripts by any spelling, forms, and tags left open or closed twice', () => {
    const facts = readHtml(
      `<html><head><title>Hidden</title><body><p>Hello <a href="https://x.example/">www.paypal.com</a>
       <a href=" java&#x09;script:alert(1)">x</a><img src="a.png" onerror="x()"><form><input></form>
       <table><tr><td>left open</div></span></body></html>`,
    );
    expect(facts.anchors[0]).toEqual({ href: 'https://x.example/', text: 'www.paypal.com' });
    expect(facts.active).toEqual(['javascript: links', 'onerror=']);
    expect(facts.forms).toEqual(['<form>', '<input>']);
    expect(facts.unclosed).toContain('table');
    expect(facts.stray).toEqual(['div', 'span']);
    // A head never closed ends where the body begins: the body's words are text.
    expect(facts.text).toMatch(/^Hello www\.paypal\.com x left open$/);
  });
});

describe("Sendwell's own links and pixel", () => {
  it('are not counted against the message: tracked links on an address, the 1×1 open pixel', async () => {
    const raw = Buffer.from(
      [
        'From: news@good.test',
        'Subject: Hello',
        'Message-ID: <1@good.test>',
        `Date: ${new Date().toUTCString()}`,
        'Content-Type: text/html',
        '',
        '<p>Short news. <a href="http://127.0.0.1:8080/api/t/c/x/1/y">Read it</a></p>',
        '<img src="http://127.0.0.1:8080/api/t/o/x/y.gif" width="1" height="1" alt="">',
      ].join('\r\n'),
    );
    const own = await analyseContent(raw, { now: new Date(), trackingHosts: ['127.0.0.1'] });
    expect(own.checks.find((item) => item.id === 'ip-links')).toBeUndefined();
    expect(own.checks.find((item) => item.id === 'image-ratio')).toMatchObject({ status: 'pass' });
    const foreign = await analyseContent(raw, { now: new Date(), trackingHosts: ['sendwell.test'] });
    expect(foreign.checks.find((item) => item.id === 'ip-links')).toMatchObject({ status: 'fail' });
  });

  it('are named for the spam test to look up, and with their targets every link check judges where a link leads', async () => {
    const shortened = 'https://sendwell.test/api/t/c/ref1/1/sig1';
    const phishing = 'https://sendwell.test/api/t/c/ref1/2/sig2';
    const raw = Buffer.from(
      [
        'From: news@good.test',
        'Subject: Hello',
        'Message-ID: <1@good.test>',
        `Date: ${new Date().toUTCString()}`,
        'Content-Type: text/html',
        '',
        `<p>Our news, <a href="${shortened}">read it</a>, and <a href="${phishing}">https://www.paypal.com/login</a>.</p>`,
        `<p><a href="https://other.example/r/1">Elsewhere</a> and <a href="${shortened}">again</a>.</p>`,
      ].join('\r\n'),
    );
    const context = { now: new Date(), trackingHosts: ['sendwell.test'] };
    const written = await readOwnChecks(raw, context);
    expect(written.trackedLinks).toEqual([shortened, phishing]);
    expect(written.checks.find((item) => item.id === 'shorteners')).toMatchObject({ status: 'pass' });
    expect(written.checks.find((item) => item.id === 'link-text')).toBeUndefined();

    const linkTargets = { [shortened]: 'https://bit.ly/3xYz', [phishing]: 'http://192.0.2.7/login' };
    const read = await readOwnChecks(raw, { ...context, linkTargets });
    expect(read.trackedLinks).toEqual([]);
    expect(read.checks.find((item) => item.id === 'shorteners')).toMatchObject({
      status: 'fail',
      detail: 'Links through bit.ly.',
    });
    expect(read.checks.find((item) => item.id === 'ip-links')).toMatchObject({ status: 'fail' });
    expect(read.checks.find((item) => item.id === 'link-text')!.detail).toMatch(
      /names paypal\.com but the link goes to 192\.0\.2\.7/,
    );
    // A link that is no tracked link of Sendwell's is read as written; the count says how many were read through.
    const clean = await readOwnChecks(raw, { ...context, linkTargets: { [shortened]: 'https://good.test/news' } });
    expect(clean.checks.find((item) => item.id === 'shorteners')!.detail).toBe(
      "4 links, none through a shortener (2 through Sendwell's click tracking, read as where they lead).",
    );
  });
});

describe('reading MIME parts', () => {
  it('finds each leaf with its type, transfer encoding and disposition', () => {
    const raw = Buffer.from(
      [
        'Content-Type: multipart/mixed; boundary="outer"',
        '',
        '--outer',
        'Content-Type: multipart/alternative; boundary=inner',
        '',
        '--inner',
        'Content-Type: text/plain',
        'Content-Transfer-Encoding: base64',
        '',
        Buffer.from('plain words').toString('base64'),
        '--inner',
        'Content-Type: text/html',
        '',
        '<p>words</p>',
        '--inner--',
        '--outer',
        'Content-Type: application/pdf',
        'Content-Disposition: attachment; filename="a.pdf"',
        '',
        'JVBERi0=',
        '--outer--',
        '',
      ].join('\r\n'),
    );
    expect(mimeLeaves(raw).map(({ type, encoding, isAttachment }) => [type, encoding, isAttachment])).toEqual([
      ['text/plain', 'base64', false],
      ['text/html', '7bit', false],
      ['application/pdf', '7bit', true],
    ]);
  });
});

describe('bounded time on hostile input (R24)', () => {
  const context = { now: new Date(), trackingHosts: ['sendwell.test'] };
  const fill = (size: number, unit: string) => unit.repeat(Math.floor(size / unit.length));
  const headers = (from = 'a@good.test', extra = '') =>
    `From: ${from}\r\nTo: b@c.test\r\nSubject: s\r\nMessage-ID: <x@good.test>\r\nDate: ${new Date().toUTCString()}\r\n${extra}`;
  const html = (body: string) => Buffer.from(`${headers()}Content-Type: text/html\r\n\r\n${body}`, 'latin1');
  const hostile: Record<string, (size: number) => Buffer> = {
    'anchors naming addresses': (size) => html(fill(size, '<a href="https://evil.example/">www.paypal.com</a>')),
    'anchors that never end': (size) => html(fill(size, '<a ')),
    'open tags and stray closes': (size) => html(fill(size, '<div></span>')),
    'tags nested and never closed': (size) => html(fill(size, '<b><i>')),
    'script links spelled with controls': (size) => html(fill(size, '<a href=" \tjava\nscript:x">')),
    'a From of quotes': (size) => Buffer.from(`${headers(fill(size, '"'))}\r\nbody`),
    'a From of parentheses': (size) => Buffer.from(`${headers(fill(size, '('))}\r\nbody`),
    'folded header lines': (size) =>
      Buffer.from(`${headers('a@good.test', `X-Long: a\r\n${fill(size, ' b\r\n')}`)}\r\nbody`),
    boundaries: (size) =>
      Buffer.from(`${headers()}Content-Type: multipart/mixed; boundary=b\r\n\r\n${fill(size, '--b\r\n')}`),
    'base64 text': (size) =>
      Buffer.from(
        `${headers()}Content-Type: text/plain\r\nContent-Transfer-Encoding: base64\r\n\r\n${Buffer.from(fill(size * 0.7, 'hello world ')).toString('base64')}`,
      ),
  };

  /** One run's time in milliseconds of CPU (`cpuClock`). */
  const timed = async (raw: Buffer) => {
    const elapsed = cpuClock();
    const analysis = await analyseContent(raw, context);
    const took = elapsed();
    expect(analysis.checks.length).toBeGreaterThan(0);
    return took;
  };

  // Growth, not a time limit: ten times the input may take ten times as long (and some),
  // never the hundred times a pattern that backtracks or rescans would take. Each size's time
  // is its fastest run, the sizes taking turns: a loaded machine slows a run, never speeds
  // one, so another round is run (up to six) only while the growth looks too steep.
  it.each(Object.keys(hostile))(
    'reads 2 MB of %s in time that grows with its size',
    async (name) => {
      const inputs = { small: hostile[name]!(200_000), large: hostile[name]!(2_000_000) };
      let small = Number.POSITIVE_INFINITY;
      let large = Number.POSITIVE_INFINITY;
      const growth = () => large / Math.max(small, 20);
      for (let round = 0; round < 6 && (round < 2 || growth() >= 30); round++) {
        small = Math.min(small, await timed(inputs.small));
        large = Math.min(large, await timed(inputs.large));
      }
      expect(growth(), `${small.toFixed(1)} ms at 200 KB, ${large.toFixed(1)} ms at 2 MB`).toBeLessThan(30);
    },
    120_000,
  );

  it('reads a message mailparser refuses as unreadable, with a finding, rather than failing', async () => {
    const analysis = await analyseContent(Buffer.from(`${headers(fill(3_000_000, 'a'))}\r\nbody`), context);
    expect(analysis.checks.find((item) => item.id === 'structure')).toMatchObject({ status: 'fail', penalty: 4 });
    expect(analysis.verdict).not.toBe('Excellent');
  });
});
