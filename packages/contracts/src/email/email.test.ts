import { describe, expect, it } from 'vitest';
import { mergeValue } from '../sending/merge-fields';
import { DEFAULT_STYLE, type TEmailDocument, ZEmailDocument } from './document';
import { blockEnd, blockStart, renderEmail } from './render';
import { bodyOf, documentFromHtml } from './round-trip';
import { STARTER_TEMPLATES } from './starters';

const twoColumns: TEmailDocument = {
  version: 1,
  kind: 'email',
  style: DEFAULT_STYLE,
  blocks: [
    { type: 'heading', id: 'h', text: 'Hello <you> & "them"', level: 1, align: 'left', color: null },
    {
      type: 'section',
      id: 's',
      background: null,
      columns: [
        {
          id: 'c1',
          blocks: [
            {
              type: 'image',
              id: 'i',
              src: 'https://sendwell.test/media/abc',
              alt: 'A cat',
              href: '',
              width: null,
              align: 'center',
            },
          ],
        },
        { id: 'c2', blocks: [{ type: 'text', id: 't', html: '<p>Some <strong>words</strong></p>' }] },
      ],
    },
    {
      type: 'button',
      id: 'b',
      text: 'Buy',
      href: 'https://shop.test/',
      background: '#000000',
      color: '#ffffff',
      radius: 4,
      align: 'center',
    },
    { type: 'footer', id: 'f', text: 'Why you get this', address: '1 Main St', unsubscribeText: 'Unsubscribe' },
  ],
};

describe('email document rendering', () => {
  it('writes columns as Outlook ghost tables around inline blocks that stack on phones', () => {
    const html = renderEmail(twoColumns);
    expect(html.match(/class="sw-col"/g)).toHaveLength(2);
    expect(html).toContain('<!--[if mso]><table role="presentation" width="100%"');
    expect(html).toContain('max-width:288px');
    expect(html).toMatch(/@media \(max-width:620px\)\{[^}]*\}\.sw-col\{max-width:100%!important\}/);
    // Text is escaped; the footer carries the unsubscribe link the engine fills.
    expect(html).toContain('Hello &lt;you&gt; &amp; &quot;them&quot;');
    expect(html).toContain('href="{{unsubscribe_url}}"');
    expect(html).toContain('<p style="margin:0 0 12px">Some <strong>words</strong></p>');
  });

  it('accepts its own documents and refuses a javascript: link or a deep nesting', () => {
    expect(ZEmailDocument.safeParse(twoColumns).success).toBe(true);
    const evil = structuredClone(twoColumns);
    (evil.blocks[2] as { href: string }).href = 'javascript:alert(1)';
    expect(ZEmailDocument.safeParse(evil).success).toBe(false);
    const nested = structuredClone(twoColumns) as unknown as { blocks: { columns?: { blocks: unknown[] }[] }[] };
    nested.blocks[1]!.columns![0]!.blocks.push(structuredClone(twoColumns.blocks[1]));
    expect(ZEmailDocument.safeParse(nested).success).toBe(false);
  });
});

describe('Visual → HTML → Visual', () => {
  it('gives back the same document for unchanged HTML', () => {
    const result = documentFromHtml(renderEmail(twoColumns), twoColumns);
    expect(result).toEqual({ ok: true, document: twoColumns, changed: false });
  });

  it('keeps a block edited by hand as an HTML block holding exactly what was written, the rest as blocks', () => {
    const html = renderEmail(twoColumns).replace('>Buy</a>', '>Buy now</a>');
    const result = documentFromHtml(html, twoColumns);
    if (!result.ok) throw new Error(result.reason);
    expect(result.document.blocks.map((block) => block.type)).toEqual(['heading', 'section', 'html', 'footer']);
    expect(result.document.blocks[1]).toBe(twoColumns.blocks[1]);
    // Rendering the new document gives the edited HTML back, byte for byte.
    expect(renderEmail(result.document)).toBe(html);
  });

  it('keeps rows added between blocks and rows moved, and never drops text', () => {
    const original = renderEmail(twoColumns);
    const footer = original.slice(
      original.indexOf(blockStart('f')),
      original.indexOf(blockEnd('f')) + blockEnd('f').length,
    );
    const heading = original.slice(
      original.indexOf(blockStart('h')),
      original.indexOf(blockEnd('h')) + blockEnd('h').length,
    );
    const added = '<tr><td>A row of my own</td></tr>';
    const html = original.replace(heading, '').replace(footer, `${added}${heading}${footer}`);
    const result = documentFromHtml(html, twoColumns);
    if (!result.ok) throw new Error(result.reason);
    expect(result.document.blocks.map((block) => block.id).slice(0, 2)).toEqual(['s', 'b']);
    expect(result.document.blocks[2]).toMatchObject({ type: 'html', html: added, row: true });
    // The new block gains its markers; what was written is there as written.
    const unmarked = (text: string) => text.replace(/<!--\/?sw:h[0-9a-z]*-->/g, '');
    expect(unmarked(renderEmail(result.document))).toBe(unmarked(html));
  });

  it('says so when the head or the frame was changed, rather than losing the change', () => {
    const html = renderEmail(twoColumns).replace('<title></title>', '<title>Mine</title>');
    expect(documentFromHtml(html, twoColumns)).toEqual({ ok: false, reason: 'frame-changed' });
    expect(documentFromHtml('<p>hand written</p>', twoColumns)).toEqual({ ok: false, reason: 'no-rows' });
  });

  it('takes the body of an HTML document, with the head styles, for an HTML block', () => {
    expect(bodyOf('<html><head><style>p{color:red}</style></head><body class="x"><p>Hi</p></body></html>')).toBe(
      '<style>p{color:red}</style><p>Hi</p>',
    );
    expect(bodyOf('<p>Just a fragment</p>')).toBe('<p>Just a fragment</p>');
  });

  it('reads 100,000 unclosed markers in about the time of 10,000 times ten (linear, R24)', () => {
    const [head, tail] = renderEmail(twoColumns).split('<!--sw:end-->');
    const timeOf = (count: number) => {
      const hostile = `${head}${Array.from({ length: count }, (_, index) => `<!--sw:x${index.toString(36)}-->`).join('')}<!--sw:end-->${tail}`;
      const started = process.hrtime.bigint();
      documentFromHtml(hostile, twoColumns);
      return Number(process.hrtime.bigint() - started);
    };
    timeOf(10_000);
    const ratio = timeOf(100_000) / timeOf(10_000);
    // Quadratic scanning would make this about 100.
    expect(ratio).toBeLessThan(40);
  });

  it('reads unclosed markers as loose HTML, without losing them', () => {
    const [head, tail] = renderEmail(twoColumns).split('<!--sw:end-->');
    const result = documentFromHtml(`${head}${'<!--sw:a-->x'.repeat(3)}<!--sw:end-->${tail}`, twoColumns);
    if (!result.ok) throw new Error(result.reason);
    expect(result.document.blocks.at(-1)).toMatchObject({ type: 'html', html: '<!--sw:a-->x'.repeat(3) });
  });
});

describe('starter templates', () => {
  it('are six valid documents with distinct keys, a footer and no id twice', () => {
    expect(STARTER_TEMPLATES.length).toBeGreaterThanOrEqual(6);
    expect(new Set(STARTER_TEMPLATES.map((template) => template.key)).size).toBe(STARTER_TEMPLATES.length);
    for (const template of STARTER_TEMPLATES) {
      expect(ZEmailDocument.safeParse(template.document).success, template.key).toBe(true);
      expect(
        template.document.blocks.some((block) => block.type === 'footer'),
        template.key,
      ).toBe(true);
      const html = renderEmail(template.document);
      const ids = [...html.matchAll(/<!--sw:([a-z0-9]+)-->/g)].map((match) => match[1]);
      expect(new Set(ids).size, template.key).toBe(ids.length);
    }
  });
});

describe('first and last name fields', () => {
  const yara = { email: 'y@x.test', name: 'Yara Smith', fields: {} };
  it('come from the Name when the member has no such fields', () => {
    expect(mergeValue(yara, 'first_name', 'there')).toBe('Yara');
    expect(mergeValue(yara, 'last_name', undefined)).toBe('Smith');
    expect(mergeValue({ ...yara, name: '' }, 'first_name', 'there')).toBe('there');
    expect(mergeValue({ ...yara, name: 'Cher' }, 'last_name', '-')).toBe('-');
  });
  it('come from the fields an import kept when there are some', () => {
    expect(mergeValue({ ...yara, fields: { first_name: 'Y.' } }, 'first_name', undefined)).toBe('Y.');
  });
});
