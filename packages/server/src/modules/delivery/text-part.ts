import { htmlProblemOf } from '@sendwell/contracts/html/html-bounds';
import { convert as htmlToText } from 'html-to-text';

/**
 * The plain-text alternative of a send's HTML, merge fields left as they are (they are
 * filled per recipient, unescaped): receivers and their filters distrust HTML-only mail
 * (SpamAssassin's MIME_HTML_ONLY, rspamd's), and some readers read text.
 *
 * Pure and synchronous: it runs on a thread of the CPU pool (`platform/cpu-pool.ts`), never
 * on the event loop: html-to-text takes seconds over a 2 MB table (4.5 s for 50,000 rows).
 * HTML nested past the bound every form refuses (R40) is not converted at all: the parser
 * under html-to-text is quadratic in the nesting and its walk overflows the stack. It can
 * reach here only if stored before the bound existed; its send fails with the reason.
 */
export type TTextPart = { text: string; problem: null } | { text: null; problem: string };

export const textPartOf = (html: string): TTextPart => {
  const problem = htmlProblemOf(html);
  if (problem) return { text: null, problem };
  const text = htmlToText(html, {
    // No wrapping: a long merge field's fallback must stay on one line to be found again.
    wordwrap: false,
    selectors: [
      // Headings and header cells keep their case: upper-casing would rename merge fields.
      ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } })),
      { selector: 'table', format: 'dataTable', options: { uppercaseHeaderCells: false } },
      { selector: 'img', format: 'skip' },
      { selector: 'a', options: { hideLinkHrefIfSameAsText: true, ignoreHref: false } },
    ],
  }).trim();
  return { text, problem: null };
};
