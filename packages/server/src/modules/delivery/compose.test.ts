import { renderMergeFields, ZSendEmailRequest } from '@sendwell/contracts';
import { afterAll, describe, expect, it } from 'vitest';
import { cpuClock } from '../../../test/cpu-clock';
import type { TPlatform } from '../../platform/context';
import { createCpuPool } from '../../platform/cpu-pool';
import {
  buildBatchMessage,
  buildMessage,
  MAX_MESSAGE_CHARS,
  MessageComposeError,
  prepareMessage,
  refOf,
} from './message';
import { linksOf, trackHtml, webHrefsOf } from './tracking-links';

/** What composing reads of the platform: its public address, signing key, and the CPU pool that makes text parts. */
const platform = {
  config: { publicUrl: 'https://sendwell.test', port: 0, messageWork: { threads: 1, timeoutMs: 120_000 } },
  secrets: { signingKey: Buffer.from('compose-test-signing-key') },
  cpu: createCpuPool({ threads: 1, maxQueue: 64, memoryMb: 256 }),
} as unknown as TPlatform;
afterAll(() => platform.cpu.close());

const sendOf = (html: string, changes: object = {}) =>
  ({
    id: 9,
    user_id: 3,
    source: 'lists',
    from_name: 'Acme',
    from_address: 'news@acme.test',
    subject: 'Hello {{name::friend}}',
    reply_to: '',
    html,
    track_opens: true,
    track_clicks: true,
    ...changes,
  }) as never;

const recipient = { id: 7, email: 'ann@example.com', name: 'Ann', fields: { city: 'Oslo' }, token: 'c'.repeat(32) };

// The link pattern the tokenizer replaces, kept as the reference for ordinary HTML.
const OLD_ANCHOR_HREF = /(<a\b[^>]*?\bhref\s*=\s*)(["'])(https?:\/\/[^"']+)\2/gi;
const oldLinksOf = (html: string) =>
  [...new Set(Array.from(html.matchAll(OLD_ANCHOR_HREF), (match) => match[3]!.replace(/&amp;/g, '&')))].filter(
    (url) => url.length <= 2000,
  );
const oldTrackLinks = (html: string, click: (linkId: number) => string, links: Map<string, number>) =>
  html.replace(OLD_ANCHOR_HREF, (whole, start: string, quote: string, url: string) => {
    const linkId = links.get(url.replace(/&amp;/g, '&'));
    return linkId === undefined ? whole : `${start}${quote}${click(linkId)}${quote}`;
  });

const ORDINARY_HTML = [
  '<p><a href="https://example.com/page?a=1&amp;b=2">Read</a> <a href="mailto:hi@acme.test">Mail</a> <a href="javascript:alert(1)">X</a></p>',
  `<!doctype html><html><head><title>News</title><style>a{color:red}</style></head><body>
    <table><tr><td><a class="button" target="_blank" style="color:#fff" href='https://acme.test/offer'>Offer</a></td></tr></table>
    <A HREF="HTTP://ACME.TEST/UPPER">Upper</A> <a href = "https://acme.test/offer">again</a>
    <a href="#top">top</a> <a name="x">anchor</a> <img src="https://acme.test/logo.png" alt="">
    <a
      id="multi"
      href="https://acme.test/multi-line?x={{city}}&amp;y=2"
    >multi</a>
  </body></html>`,
  '<div>{{name}}</div><a href="http://plain.test">plain</a><a href="https://acme.test/a">a</a><a href="https://acme.test/b">b</a>',
  'no links here, only text & an ampersand',
];

describe('link tracking', () => {
  it('stores and rewrites exactly the links the old pattern did, in ordinary HTML', () => {
    const click = (linkId: number) => `https://sendwell.test/api/t/c/${'c'.repeat(32)}/${linkId}/sig`;
    for (const html of ORDINARY_HTML) {
      const links = linksOf(html);
      expect(links, html).toEqual(oldLinksOf(html));
      const ids = new Map(links.map((url, index) => [url, index + 1]));
      const tracked = trackHtml(html, { click, open: () => '' }, ids, { opens: false, clicks: true }, webHrefsOf(html));
      expect(tracked, html).toBe(oldTrackLinks(html, click, ids));
    }
  });

  it("follows the tag's own href, not text in another attribute or a script that looks like one", () => {
    const html =
      `<a title='see href="https://evil.test/x"' href="https://good.test/">go</a>` +
      `<script>document.write('<a href="https://script.test/">')</script><!-- <a href="https://comment.test/"> -->`;
    expect(linksOf(html)).toEqual(['https://good.test/']);
  });

  it("tracks the links of Outlook's conditional comments and unquoted targets", () => {
    const html =
      '<!--[if mso]><a href="https://acme.test/outlook">o</a><![endif]--><a href=https://acme.test/bare>b</a>';
    expect(linksOf(html)).toEqual(['https://acme.test/outlook', 'https://acme.test/bare']);
    const tracked = trackHtml(
      html,
      { click: (linkId) => `https://t.test/${linkId}`, open: () => '' },
      new Map([
        ['https://acme.test/outlook', 1],
        ['https://acme.test/bare', 2],
      ]),
      { opens: false, clicks: true },
      webHrefsOf(html),
    );
    expect(tracked).toBe('<!--[if mso]><a href="https://t.test/1">o</a><![endif]--><a href=https://t.test/2>b</a>');
  });

  it('tracks a whole message as before: each web link through the tracker, the pixel before </body>', async () => {
    const html = ORDINARY_HTML[1]!;
    const links = new Map(linksOf(html).map((url, index) => [url, index + 1]));
    const message = await buildMessage(platform, sendOf(html), recipient, links);
    expect(message.html).toContain(`href='https://sendwell.test/api/t/c/${refOf(platform, 'tracking', recipient)}/1/`);
    expect(message.html).not.toMatch(/href\s*=\s*["']https?:\/\/acme\.test\/(offer|UPPER)/i);
    // A target holding a merge field differs per recipient: it is no stored link, and stays.
    expect(message.html).toContain('href="https://acme.test/multi-line?x=Oslo&amp;y=2"');
    expect(message.html).toContain('href="#top"');
    expect(message.html).toContain(
      `<img src="https://sendwell.test/api/t/o/${refOf(platform, 'tracking', recipient)}/`,
    );
    expect(message.html).toMatch(/<img src="https:\/\/sendwell\.test\/api\/t\/o\/[^"]+\.gif"[^>]*><p style/);
  });
});

describe('where a message is composed (R40, B9)', () => {
  /** A message of `html` for the recipient, and the pool's tasks that ran while it was composed. */
  const composed = async (html: string) => {
    const poolRuns: string[] = [];
    const run = platform.cpu.run;
    platform.cpu.run = ((name, input, options) => {
      poolRuns.push(name);
      return run(name, input, options);
    }) as typeof run;
    try {
      const message = await buildMessage(platform, sendOf(html), recipient, new Map([['https://acme.test/read', 1]]));
      return { html: message.html ?? '', text: message.text ?? '', poolRuns };
    } finally {
      platform.cpu.run = run;
    }
  };

  it('makes a small message on the loop and a large one on a pool thread, with the same parts', async () => {
    const paragraph = '<p>A paragraph with <a href="https://acme.test/read">a link</a> for {{name}}.</p>';
    const small = await composed(paragraph.repeat(20));
    const large = await composed(paragraph.repeat(400));
    expect(paragraph.repeat(20).length).toBeLessThan(16_384);
    expect(paragraph.repeat(400).length).toBeGreaterThan(16_384);
    expect(small.poolRuns).toEqual([]);
    expect(large.poolRuns).toEqual(['textPart', 'webHrefs']);
    // The same text and tracking either way: the large message is the small one's paragraphs repeated.
    const [line] = small.text.split('\n');
    expect(line).toContain('A paragraph with a link');
    expect(large.text.split('\n')[0]).toBe(line);
    expect(small.html.split('/api/t/c/').length).toBe(21);
    expect(large.html.split('/api/t/c/').length).toBe(401);
  });

  it('refuses a small message nested past the bound on the loop as the pool would: uncomposable, with the reason', async () => {
    const nested = `${'<div>'.repeat(300)}deep${'</div>'.repeat(300)}`;
    expect(nested.length).toBeLessThan(16_384);
    const error = await buildMessage(platform, sendOf(nested), recipient).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'MessageComposeError', reason: 'uncomposable' });
    expect((error as Error).message).toMatch(/more than 256 levels deep/);
  });
});

describe('composing a message', () => {
  it('composes merge fields named like Object.prototype members as missing, instead of throwing', async () => {
    const send = sendOf('<p>{{constructor}}{{__proto__::x}}{{toString}}</p>', { subject: '{{hasOwnProperty::Hi}}' });
    const message = await buildMessage(platform, send, recipient);
    expect(message.subject).toBe('Hi');
    expect(message.html).toContain('<p>x</p>');
    const { variablesOf } = await buildBatchMessage(platform, send, new Map());
    expect(Object.values(variablesOf(recipient))).toEqual(expect.arrayContaining(['x', 'Hi']));
  });

  it('refuses, with MessageComposeError, a message that would grow past the limit with its fields', async () => {
    const big = { ...recipient, fields: { bio: 'b'.repeat(100_000) } };
    const send = sendOf(`<p>${'{{bio}} '.repeat(200)}</p>`);
    const error = await buildMessage(platform, send, big).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MessageComposeError);
    expect(error).toMatchObject({ name: 'MessageComposeError', reason: 'too-large' });
    expect((error as Error).message).toContain(MAX_MESSAGE_CHARS.toLocaleString('en-US'));
    // The same send composes for a recipient whose field is small.
    expect((await buildMessage(platform, send, recipient)).html).toContain('<p>');
  });

  it('gives every message a plain-text part from its HTML, fields filled unescaped, with the unsubscribe address', async () => {
    const message = await buildMessage(
      platform,
      sendOf('<h1>Hello {{name}}</h1><p>Read <a href="https://acme.test/news">the news</a>.<img src="x.png"></p>'),
      { ...recipient, name: 'Ann & Bob <team>' },
    );
    expect(message.html).toContain('Ann &#38; Bob &#60;team&#62;');
    // A heading keeps its case (upper-casing it would rename the merge field).
    expect(message.text).toContain('Hello Ann & Bob <team>');
    expect(message.text).toMatch(/the news \[https:\/\/acme\.test\/news\]/);
    expect(message.text).not.toContain('x.png');
    expect(message.text).toMatch(/Unsubscribe: https:\/\/\S+\/unsubscribe\/\S+/);
  });

  it('fills one prepared message per recipient with their own values, tracking addresses and headers', async () => {
    const html = '<p>Hi {{name}} from {{city::nowhere}}</p><a href="https://acme.test/a">a</a>';
    const links = new Map([['https://acme.test/a', 4]]);
    const messageOf = await prepareMessage(platform, sendOf(html, { subject: 'For {{name}}\n!' }), links);
    // A value that looks like a marker or a Mailgun variable is only text.
    const bob = {
      email: 'bob@example.com',
      name: '\uE000abc.0\uE001 %recipient.token%',
      fields: {},
      id: 8,
      token: 'd'.repeat(32),
      headers: { 'In-Reply-To': '<x@acme.test>' },
    };
    const [ann, other] = [messageOf(recipient), messageOf(bob)];
    // The same as composing each recipient's message on its own.
    expect(ann).toEqual(await buildMessage(platform, sendOf(html, { subject: 'For {{name}}\n!' }), recipient, links));
    expect(ann.html).toContain('Hi Ann from Oslo');
    expect(other.html).toContain('Hi \uE000abc.0\uE001 %recipient.token% from nowhere');
    expect(other.subject).toBe('For \uE000abc.0\uE001 %recipient.token% !');
    expect(ann.html).toContain(`/api/t/c/${refOf(platform, 'tracking', recipient)}/4/`);
    expect(other.html).toContain(`/api/t/c/${refOf(platform, 'tracking', bob)}/4/`);
    expect(other.html).not.toContain(refOf(platform, 'tracking', recipient));
    expect(other.text).toContain(`/unsubscribe/${refOf(platform, 'unsubscribe', bob)}`);
    expect(other.headers).toMatchObject({
      'List-Unsubscribe': expect.stringContaining(`/api/unsubscribe/${refOf(platform, 'unsubscribe', bob)}>`),
      'In-Reply-To': '<x@acme.test>',
      'Message-ID': `<${refOf(platform, 'message-id', bob)}@acme.test>`,
      'Feedback-ID': '9:3:lists:sendwell',
    });
    expect(ann.headers).not.toHaveProperty('In-Reply-To');
  });

  it('gives a field used many times one batch variable', async () => {
    const { template, variablesOf } = await buildBatchMessage(
      platform,
      sendOf('{{name}} {{name}} {{name::x}} {{name}}', { subject: '{{name}}' }),
      new Map(),
    );
    expect(template.html).toContain('%recipient.m0% %recipient.m0% %recipient.m1% %recipient.m0%');
    expect(template.subject).toBe('%recipient.m2%');
    // The text part fills fields unescaped, as the subject does: it shares the subject's variable.
    expect(template.text).toContain('%recipient.m2% %recipient.m2% %recipient.m3% %recipient.m2%');
    expect(Object.keys(variablesOf(recipient)).filter((key) => /^m\d+$/.test(key))).toEqual(['m0', 'm1', 'm2', 'm3']);
  });
});

describe('one reference per purpose (R34)', async () => {
  const html = '<p>Hi</p><a href="https://acme.test/a">a</a>';
  const links = new Map([['https://acme.test/a', 4]]);
  const withBounces = {
    ...platform,
    config: { ...platform.config, bounces: { domain: 'b.sendwell.test' } },
  } as TPlatform;
  const message = await buildMessage(withBounces, sendOf(html), recipient, links);
  const refs = {
    verp: /^bounces\+([^@]+)@/.exec(message.envelopeFrom ?? '')?.[1],
    messageId: /^<([^@]+)@/.exec(message.headers?.['Message-ID'] ?? '')?.[1],
    unsubscribe: /\/unsubscribe\/([^>/\s]+)>/.exec(message.headers?.['List-Unsubscribe'] ?? '')?.[1],
    preferences: /\/preferences\/([^"/\s]+)"/.exec(message.html ?? '')?.[1],
    tracking: /\/api\/t\/c\/([^/]+)\//.exec(message.html ?? '')?.[1],
    provider: message.variables?.['sendwell-recipient'],
  };

  it('gives the VERP address, Message-ID, unsubscribe link, preferences link, tracking links and provider variable each its own value', () => {
    const values = Object.values(refs);
    expect(values.every((value) => typeof value === 'string' && value.length > 10)).toBe(true);
    expect(new Set(values).size).toBe(values.length);
  });

  it('never shows the recipient’s token, and no value contains another’s secret part', () => {
    const whole = JSON.stringify(message);
    expect(whole).not.toContain(recipient.token);
    const macs = Object.values(refs).map((value) => value!.split('-')[1]!);
    for (const mac of macs) expect(macs.filter((other) => other === mac)).toHaveLength(1);
    // The unsubscribe link's capability is nowhere but in the unsubscribe addresses.
    expect(whole.split(refs.unsubscribe!).length - 1).toBe(4); // List-Unsubscribe (https, mailto), HTML footer, text footer
    // The preferences page's, in the footers alone.
    expect(whole.split(refs.preferences!).length - 1).toBe(2);
  });
});

describe('bounded time on hostile input (R24)', () => {
  const TWO_MB = 2_000_000;
  /** The smaller size each step is also timed at: an eighth. */
  const EIGHTH = TWO_MB / 8;
  const fill = (size: number, unit: string, prefix = '', suffix = '') =>
    prefix + unit.repeat(Math.floor((size - prefix.length - suffix.length) / unit.length)) + suffix;
  /** Each hostile shape, as HTML of the given size. */
  const hostile: Record<string, (size: number) => string> = {
    'merge fields that never close': (size) => fill(size, '{{a::'),
    'merge fields closed once at the end': (size) => fill(size, '{{a::', '', '}'),
    'spaces after an opening': (size) => fill(size, ' ', '{{'),
    'a name and spaces': (size) => fill(size, ' ', '{{a'),
    'nested openings': (size) => fill(size, '{{{{'),
    'anchors that never end': (size) => fill(size, '<a '),
    'anchor attributes without an end': (size) => fill(size, ' href=', '<a'),
    'unterminated targets': (size) => fill(size, '<a href="http://x'),
    'conditional comments full of anchors': (size) => fill(size, '<a ', '<!--[if mso]>', '<![endif]-->'),
    'entities in a target': (size) => fill(size, '&amp;', '<a href="https://x.test/?'),
    'a hundred thousand links': (size) => fill(size, '<a href="https://x.test/">a</a>'),
    'body closings': (size) => fill(size, '</body'),
  };

  /** How long one step took, in milliseconds of CPU (`cpuClock`: the process's, its CPU pool's threads included). */
  const timed = async (step: () => unknown) => {
    const elapsed = cpuClock();
    await step();
    return elapsed();
  };

  /** Each step a message goes through: the form's check, storing its links, one recipient's message, a batch's variables, the preview's merge. */
  const steps = (html: string) => {
    let links = new Map<string, number>();
    return {
      form: () => {
        const parsed = ZSendEmailRequest.safeParse({
          account: 1,
          to: [1],
          from: html.slice(0, 400),
          subject: html.slice(0, 998),
          cc: html.slice(0, 2000),
          reply: html.slice(0, 320),
          message: html,
        });
        expect(parsed.error?.issues.some((issue) => issue.path[0] === 'message')).not.toBe(true);
      },
      links: () => {
        links = new Map(linksOf(html).map((url, index) => [url, index + 1]));
      },
      message: async () => {
        try {
          await buildMessage(platform, sendOf(html, { subject: html.slice(0, 998) }), recipient, links);
        } catch (error) {
          // Too large is an answer too; anything else is not.
          expect(error).toBeInstanceOf(MessageComposeError);
        }
      },
      batch: async () => (await buildBatchMessage(platform, sendOf(html), links)).variablesOf(recipient),
      preview: () => renderMergeFields(html, recipient, true),
    };
  };

  /**
   * Bounded time, asserted as growth rather than against the clock (a loaded machine makes
   * any fixed threshold flaky): each step is timed on the 2 MB message and on one an eighth
   * that size, and must take less than 32 times as long on the larger. Linear work measured
   * 5 to 20 times here (caches: 250 KB fits where 2 MB does not); the patterns these replace
   * grew with the square of the size (13 s on 200 KB, minutes on 2 MB): 64 times for 8 times
   * the input. Each time is the least of up to six tries, since a busy machine only ever
   * adds to one (three were not enough beside another test run, at load 15); a try is made
   * again only while a step looks too slow. Times under 2 ms count
   * as 2 ms: there the clock measures the machine, not the step.
   */
  const MAX_GROWTH = 32;
  const CLOCK_FLOOR_MS = 2;
  it.each(Object.keys(hostile))(
    'composes a message of %s in time that grows linearly with its size, up to 2 MB',
    async (label) => {
      const large = steps(hostile[label]!(TWO_MB));
      const small = steps(hostile[label]!(EIGHTH));
      const least = { large: {} as Record<string, number>, small: {} as Record<string, number> };
      const growth = () =>
        Object.fromEntries(
          Object.keys(large).map((step) => [
            step,
            Math.max(least.large[step]!, CLOCK_FLOOR_MS) / Math.max(least.small[step]!, CLOCK_FLOOR_MS),
          ]),
        );
      for (let round = 0; round < 6; round++) {
        for (const [size, timedSteps] of [
          ['small', small],
          ['large', large],
        ] as const) {
          for (const [step, run] of Object.entries(timedSteps)) {
            least[size][step] = Math.min(least[size][step] ?? Number.POSITIVE_INFINITY, await timed(run));
          }
        }
        if (Object.values(growth()).every((ratio) => ratio < MAX_GROWTH)) break;
      }
      for (const [step, ratio] of Object.entries(growth())) {
        expect(
          ratio,
          `${step}: ${least.small[step]!.toFixed(1)} ms at 250 KB, ${least.large[step]!.toFixed(1)} ms at 2 MB`,
        ).toBeLessThan(MAX_GROWTH);
      }
    },
  );
});
