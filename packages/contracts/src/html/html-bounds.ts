import { z } from 'zod';

/**
 * The bounds every piece of user HTML is held to before anything parses it into a tree
 * (R40): a message's HTML, a template's, a drip step's, a signature. The size is each
 * field's own `max`; the nesting is measured here.
 *
 * Why nesting: every tree-building HTML parser and every walk of the tree it builds pays
 * for depth. htmlparser2 (under html-to-text and mailparser) keeps its open elements in an
 * array it `unshift`s, so `<div>` nested 110,000 deep took 4.6 s to parse, and html-to-text's
 * recursive walk then overflowed the stack: one message stalled the server for everyone.
 * Browsers stop nesting at 512 levels (Blink's parser); real email stays far below (MJML's
 * output is about 30 deep, a long forwarded thread of quotes about 100), so 256 refuses
 * nothing a person wrote or an email builder made.
 */
export const MAX_HTML_DEPTH = 256;

/** Elements with no content and no end tag: they never hold anything nested. */
const VOID_ELEMENTS = new Set([
  'area',
  'base',
  'basefont',
  'br',
  'col',
  'command',
  'embed',
  'frame',
  'hr',
  'img',
  'input',
  'isindex',
  'keygen',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);

/** Elements whose content is text up to their own end tag: no tag inside them opens anything. */
const RAW_TEXT_ELEMENTS = new Set(['script', 'style', 'title', 'textarea', 'xmp']);

/**
 * An element that closes the open ones named when it starts (`<li>` ends the `<li>` before
 * it, a block ends an open `<p>`): unclosed paragraphs, items and cells are siblings, not
 * 300 levels of nesting. The table of htmlparser2 10, the parser html-to-text and mailparser build
 * trees with (after the HTML standard's rules). htmlparser2 12 closes more (an `<a>` ends an
 * open `<a>`, a heading a heading), so the depth measured here is never below either's.
 */
const P = ['p'];
const FORM = ['input', 'option', 'optgroup', 'select', 'button', 'datalist', 'textarea'];
const IMPLIED_CLOSES = new Map<string, Set<string>>(
  (
    [
      ['tr', ['tr', 'th', 'td']],
      ['th', ['th']],
      ['td', ['thead', 'th', 'td']],
      ['body', ['head', 'link', 'script']],
      ['li', ['li']],
      ['select', FORM],
      ['input', FORM],
      ['output', FORM],
      ['button', FORM],
      ['datalist', FORM],
      ['textarea', FORM],
      ['option', ['option']],
      ['optgroup', ['optgroup', 'option']],
      ['dd', ['dd', 'dt']],
      ['dt', ['dd', 'dt']],
      ['rt', ['rt', 'rp']],
      ['rp', ['rt', 'rp']],
      ['tbody', ['thead', 'tbody']],
      ['tfoot', ['thead', 'tbody']],
      ...[
        'p',
        'h1',
        'h2',
        'h3',
        'h4',
        'h5',
        'h6',
        'address',
        'article',
        'aside',
        'blockquote',
        'details',
        'div',
        'dl',
        'fieldset',
        'figcaption',
        'figure',
        'footer',
        'form',
        'header',
        'hr',
        'main',
        'nav',
        'ol',
        'pre',
        'section',
        'table',
        'ul',
      ].map((name) => [name, P] as const),
    ] as const
  ).map(([name, closes]) => [name, new Set<string>(closes)]),
);

/** Inside these (SVG, MathML) a `/>` closes its element, as in XML… */
const FOREIGN_ELEMENTS = new Set(['svg', 'math']);
/** …and inside these, back in HTML, it does not. */
const INTEGRATION_ELEMENTS = new Set([
  'mi',
  'mo',
  'mn',
  'ms',
  'mtext',
  'annotation-xml',
  'foreignobject',
  'desc',
  'title',
]);

/** What a parser does with an element of a name, when it does anything special: one lookup a tag. */
type TKind = {
  closes: Set<string> | undefined;
  isVoid: boolean;
  isRawText: boolean;
  isForeign: boolean;
  isIntegration: boolean;
};
const KINDS = new Map<string, TKind>(
  [...IMPLIED_CLOSES.keys(), ...VOID_ELEMENTS, ...RAW_TEXT_ELEMENTS, ...FOREIGN_ELEMENTS, ...INTEGRATION_ELEMENTS].map(
    (name) => [
      name,
      {
        closes: IMPLIED_CLOSES.get(name),
        isVoid: VOID_ELEMENTS.has(name),
        isRawText: RAW_TEXT_ELEMENTS.has(name),
        isForeign: FOREIGN_ELEMENTS.has(name),
        isIntegration: INTEGRATION_ELEMENTS.has(name),
      },
    ],
  ),
);

const isSpace = (code: number) => code === 32 || code === 9 || code === 10 || code === 12 || code === 13;
const isLetter = (code: number) => (code >= 65 && code <= 90) || (code >= 97 && code <= 122);

export type THtmlNesting = {
  /** The deepest nesting seen (up to one past the limit: the scan stops there). */
  depth: number;
  /** Where the element that went past the limit starts, or null when none did. */
  tooDeepAt: number | null;
};

/**
 * How deep the HTML's elements nest, as an HTML parser builds them: end tags close what
 * they match, void elements hold nothing, and the implied closes of unclosed paragraphs,
 * items and cells apply. One pass, every character looked at a bounded number of times
 * (no regular expression, R24), and the open elements kept are never more than the limit.
 */
export const measureHtmlNesting = (html: string, limit = MAX_HTML_DEPTH): THtmlNesting => {
  const length = html.length;
  /** Open elements, innermost last: the first `size` of `open` (an array's length set back is a slow path in V8). */
  const open: string[] = [];
  let size = 0;
  /** How many elements of each name are open: an end tag of a name none has is passed at once. */
  const openCount = new Map<string, number>();
  /**
   * Whether a `/>` closes its element here, innermost first, kept as htmlparser2 keeps it:
   * a foreign or integration element starts a context, and only its own end tag ends it.
   */
  const foreignContext: boolean[] = [false];
  let depth = 0;
  /** Where a tag name from `from` ends (at a space, `/` or `>`); whether it has an upper-case letter. */
  let hasUpper = false;
  const nameEnd = (from: number) => {
    let at = from;
    hasUpper = false;
    while (at < length) {
      const code = html.charCodeAt(at);
      if (isSpace(code) || code === 47 /* / */ || code === 62 /* > */) break;
      if (code >= 65 && code <= 90) hasUpper = true;
      at++;
    }
    return at;
  };
  /** The tag name between `from` and `end`, lower-cased as parsers compare them. */
  const nameOf = (from: number, end: number) => {
    const name = html.slice(from, end);
    return hasUpper ? name.toLowerCase() : name;
  };
  const push = (name: string) => {
    open[size++] = name;
    openCount.set(name, (openCount.get(name) ?? 0) + 1);
  };
  /** Closes the open elements from `index` on (each is closed once: the scan stays linear). */
  const close = (index: number) => {
    for (let at = size - 1; at >= index; at--) {
      const name = open[at]!;
      openCount.set(name, openCount.get(name)! - 1);
    }
    size = index;
  };
  /** Where the innermost open element of this name is. */
  const indexOfOpen = (name: string) => {
    if (!openCount.get(name)) return -1;
    for (let at = size - 1; at >= 0; at--) if (open[at] === name) return at;
    return -1;
  };
  let at = 0;
  while (at < length) {
    const lt = html.indexOf('<', at);
    if (lt === -1 || lt + 1 >= length) break;
    const next = html.charCodeAt(lt + 1);
    if (next === 33 /* ! */ || next === 63 /* ? */) {
      // A comment, CDATA, a doctype or a processing instruction: nothing in it opens an element.
      if (html.startsWith('<!--', lt)) {
        const end = html.indexOf('-->', lt + 4);
        at = end === -1 ? length : end + 3;
      } else if (html.startsWith('<![CDATA[', lt)) {
        const end = html.indexOf(']]>', lt + 9);
        at = end === -1 ? length : end + 3;
      } else {
        const end = html.indexOf('>', lt + 2);
        at = end === -1 ? length : end + 1;
      }
      continue;
    }
    if (next === 47 /* / */) {
      if (lt + 2 >= length || !isLetter(html.charCodeAt(lt + 2))) {
        // `</>` and `</ ` are not end tags; what follows up to `>` is a bogus comment.
        const end = html.indexOf('>', lt + 2);
        at = end === -1 ? length : end + 1;
        continue;
      }
      const end = nameEnd(lt + 2);
      const name = nameOf(lt + 2, end);
      if ((FOREIGN_ELEMENTS.has(name) || INTEGRATION_ELEMENTS.has(name)) && foreignContext.length > 1) {
        foreignContext.pop();
      }
      const index = indexOfOpen(name);
      if (index !== -1) close(index);
      else if (name === 'p' && size + 1 > depth) {
        // A `</p>` with no paragraph open is an empty paragraph, as parsers read it.
        depth = size + 1;
        if (depth > limit) return { depth, tooDeepAt: lt };
      }
      const gt = html.indexOf('>', end);
      at = gt === -1 ? length : gt + 1;
      continue;
    }
    if (!isLetter(next)) {
      at = lt + 1;
      continue;
    }
    // A start tag: its name, then its attributes (a quoted value may hold `>`).
    const end = nameEnd(lt + 1);
    const name = nameOf(lt + 1, end);
    let cursor = end;
    let isSelfClosing = false;
    while (cursor < length) {
      const code = html.charCodeAt(cursor);
      if (code === 62 /* > */) break;
      if (code === 47 /* / */) {
        isSelfClosing = html.charCodeAt(cursor + 1) === 62;
        cursor++;
        continue;
      }
      if (code === 61 /* = */) {
        cursor++;
        while (cursor < length && isSpace(html.charCodeAt(cursor))) cursor++;
        const quote = html.charCodeAt(cursor);
        if (quote === 34 /* " */ || quote === 39 /* ' */) {
          const close = html.indexOf(quote === 34 ? '"' : "'", cursor + 1);
          cursor = close === -1 ? length : close + 1;
        }
        continue;
      }
      cursor++;
    }
    // A tag the text ends inside is no tag: the rest is text.
    if (cursor >= length) break;
    at = cursor + 1;
    const kind = KINDS.get(name);
    if (kind?.closes) {
      let index = size;
      while (index > 0 && kind.closes.has(open[index - 1]!)) index--;
      close(index);
    }
    // Every element counts where it stands, a void one too (it is a leaf at that depth).
    if (size + 1 > depth) depth = size + 1;
    if (depth > limit) return { depth, tooDeepAt: lt };
    if (kind === undefined) {
      if (!(isSelfClosing && foreignContext.at(-1))) push(name);
      continue;
    }
    if (kind.isVoid) continue;
    if (kind.isForeign) foreignContext.push(true);
    else if (kind.isIntegration) foreignContext.push(false);
    // In SVG or MathML `<path/>` is closed at once (htmlparser2 keeps the context `<svg/>` opened).
    if (isSelfClosing && foreignContext.at(-1)) continue;
    if (kind.isRawText && !isSelfClosing) {
      // Its text runs to its own end tag, which closes it: nothing inside opens an element.
      const endTag = `</${name}`;
      let search = at;
      let found = -1;
      for (let candidate = html.indexOf('</', search); candidate !== -1; candidate = html.indexOf('</', search)) {
        if (html.slice(candidate, candidate + endTag.length).toLowerCase() === endTag) {
          found = candidate;
          break;
        }
        search = candidate + 2;
      }
      if (found === -1) break;
      if (kind.isIntegration && foreignContext.length > 1) foreignContext.pop();
      const gt = html.indexOf('>', found);
      at = gt === -1 ? length : gt + 1;
      continue;
    }
    push(name);
  }
  return { depth, tooDeepAt: null };
};

/**
 * Whether anything but tags and spaces is left of the HTML: what `html.replace(/<[^>]*>/g,
 * '').trim() !== ''` says, in one pass (that pattern rescans the rest of the text from every
 * `<` without a `>`: 0.6 s at 40 KB of `<`, most of an hour at 2 MB, R24).
 */
export const hasTextOutsideTags = (html: string) => {
  let at = 0;
  while (at < html.length) {
    const lt = html.indexOf('<', at);
    if (/\S/.test(html.slice(at, lt === -1 ? html.length : lt))) return true;
    if (lt === -1) return false;
    const gt = html.indexOf('>', lt + 1);
    // A `<` that no `>` closes is text.
    if (gt === -1) return true;
    at = gt + 1;
  }
  return false;
};

/** The line (from 1) of a position in a text. */
const lineOf = (text: string, index: number) => {
  let line = 1;
  for (let at = text.indexOf('\n'); at !== -1 && at < index; at = text.indexOf('\n', at + 1)) line++;
  return line;
};

/** What is wrong with a piece of user HTML, in words for its author, or null when it is within bounds. */
export const htmlProblemOf = (html: string): string | null => {
  const { tooDeepAt } = measureHtmlNesting(html);
  if (tooDeepAt === null) return null;
  return `The HTML nests its elements more than ${MAX_HTML_DEPTH} levels deep (from line ${lineOf(html, tooDeepAt).toLocaleString('en-US')}). Email programs do not show markup this deep; simplify it, or paste it again from the editor that made it.`;
};

/**
 * A field of user HTML: at most `maxLength` characters and within the nesting bound. Every
 * schema that takes HTML a user wrote uses it, so every route refuses the same input with
 * the same 422 before anything parses it (R40).
 */
export const userHtml = (maxLength: number) =>
  z
    .string()
    .max(maxLength)
    .superRefine((value, context) => {
      const problem = htmlProblemOf(value);
      if (problem) context.addIssue({ code: 'custom', message: problem });
    });
