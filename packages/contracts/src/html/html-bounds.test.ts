import fc from 'fast-check';
import { Parser } from 'htmlparser2';
import { describe, expect, it } from 'vitest';
import { hasTextOutsideTags, htmlProblemOf, MAX_HTML_DEPTH, measureHtmlNesting, userHtml } from './html-bounds';

/**
 * The depth htmlparser2 10 builds (the version under html-to-text and mailparser, this
 * package's devDependency): the trees whose depth stalled the server, so the reference.
 */
const parserDepth = (html: string) => {
  let depth = 0;
  let deepest = 0;
  const parser = new Parser(
    {
      onopentag: () => {
        depth++;
        deepest = Math.max(deepest, depth);
      },
      onclosetag: () => {
        depth--;
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  return deepest;
};

/** Tag soup from the pieces real and hostile HTML is made of: unclosed cells, voids, comments, raw text, quotes holding `>`. */
const PIECES = [
  '<div>',
  '</div>',
  '<p>',
  '</p>',
  '<li>',
  '<ul>',
  '</ul>',
  '<table>',
  '<tr>',
  '<td>',
  '</td>',
  '</tr>',
  '</table>',
  '<tbody>',
  '<br>',
  '<img src="a>b">',
  '<a href=x>',
  '</a>',
  '<b>',
  '</b>',
  "<span class='x\"'>",
  '</span>',
  'text',
  ' ',
  '<!-- <div> -->',
  '<!--[if mso]><table><![endif]-->',
  '<!doctype html>',
  '<script>if (a<b) {"<div>"}</script>',
  '<style>p>a{}</style>',
  '<title><b></title>',
  '<textarea><div></textarea>',
  '<svg>',
  '</svg>',
  '<path d="M0"/>',
  '<div/>',
  '<option>',
  '<select>',
  '</select>',
  '<h1>',
  '<dd>',
  '<dt>',
  '<',
  '</ >',
  '< div>',
  '<?xml ?>',
  '<![CDATA[<div>]]>',
  '<DIV>',
  '</Div>',
];

describe('measureHtmlNesting', () => {
  it('measures the depth htmlparser2 builds, over random tag soup (seeded: a failure prints its seed)', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PIECES), { maxLength: 120 }), (pieces) => {
        const html = pieces.join('');
        expect(measureHtmlNesting(html, 10_000).depth).toBe(parserDepth(html));
      }),
      { numRuns: 3000 },
    );
  });

  it('reads unclosed paragraphs, items and cells as siblings, as parsers do', () => {
    expect(measureHtmlNesting('<p>a'.repeat(5000)).depth).toBe(1);
    expect(measureHtmlNesting(`<ul>${'<li>a'.repeat(5000)}</ul>`).depth).toBe(2);
    expect(measureHtmlNesting(`<table>${'<tr><td>a<td>b'.repeat(5000)}</table>`).depth).toBe(3);
    expect(measureHtmlNesting('<br><img src=x>'.repeat(5000)).depth).toBe(1);
  });

  it('stops at the first element past the limit and says where it starts', () => {
    const html = `<p>hello</p>\n${'<div>'.repeat(110_000)}x`;
    const measured = measureHtmlNesting(html);
    expect(measured).toEqual({ depth: MAX_HTML_DEPTH + 1, tooDeepAt: 13 + 5 * MAX_HTML_DEPTH });
    expect(htmlProblemOf(html)).toMatch(/more than 256 levels deep \(from line 2\)/);
    expect(htmlProblemOf(`<div>${'<table><tr><td>'.repeat(60)}x</div>`)).toBeNull();
  });

  it('holds an email builder’s nesting and a long quoted thread without complaint', () => {
    const mjmlLike = `${'<div><table><tbody><tr><td>'.repeat(8)}<p>Hi</p>${'</td></tr></tbody></table></div>'.repeat(8)}`;
    const thread = `${'<blockquote><div>'.repeat(60)}quoted${'</div></blockquote>'.repeat(60)}`;
    expect(htmlProblemOf(mjmlLike)).toBeNull();
    expect(htmlProblemOf(thread)).toBeNull();
    expect(measureHtmlNesting(thread).depth).toBe(120);
  });

  it('measures hostile shapes of 2 MB: end tags of names never opened, unclosed quotes, unclosed raw text', () => {
    // Their time grows linearly with their size: the growth test is the server's (html-bombs.test.ts).
    const shapes = [
      `${'<div>'.repeat(255)}${'</span>'.repeat(300_000)}`,
      `<a ${'x="'.repeat(600_000)}`,
      `<script>${'</a'.repeat(600_000)}`,
      `${'<b>'.repeat(200)}${'</b><b>'.repeat(250_000)}`,
    ];
    expect(shapes.map((html) => measureHtmlNesting(html).depth)).toEqual([255, 0, 1, 200]);
  });
});

describe('userHtml', () => {
  it('refuses HTML nested too deep with the line it starts on, and takes ordinary HTML', () => {
    const field = userHtml(2_000_000);
    const refused = field.safeParse('<div>'.repeat(300));
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.message).toMatch(/^The HTML nests its elements more than 256 levels deep/);
    expect(field.safeParse('<p>Hello {{name::there}}</p>').success).toBe(true);
    expect(field.safeParse('x'.repeat(2_000_001)).success).toBe(false);
  });
});

describe('hasTextOutsideTags', () => {
  it('says what the tag-stripping pattern says, over random text of tags, spaces and letters', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('<', '>', ' ', '\u00a0', '\n', 'a', '<p>', '</p>', '<img>'), { maxLength: 40 }),
        (pieces) => {
          const html = pieces.join('');
          expect(hasTextOutsideTags(html)).toBe(html.replace(/<[^>]*>/g, '').trim() !== '');
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('answers for 2 MB of `<` (the pattern it replaces would take most of an hour)', () => {
    expect(hasTextOutsideTags('<'.repeat(2_000_000))).toBe(true);
    expect(hasTextOutsideTags(`<p>${' '.repeat(1_000_000)}</p>`)).toBe(false);
  });
});
