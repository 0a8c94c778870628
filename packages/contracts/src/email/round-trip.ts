import { documentIds, type TBlock, type TEmailDocument } from './document';
import { frameOf, ROWS_END, ROWS_START, renderBlockRow, renderEmail } from './render';

/**
 * HTML written or changed by hand, read back into the document it came from (Visual → HTML →
 * Visual, issue 46). Nothing is dropped and nothing is rewritten: a block whose row is as the
 * document renders it stays that block; a row that was changed, and anything written between
 * rows, becomes an HTML block holding exactly that HTML. A change outside the rows (the head,
 * the page's frame) has no block to go to, so the answer says so instead of losing it.
 *
 * Plain string scanning (no parser, no regular expression over the whole text): linear in the
 * HTML's length, the same in the browser and on the server (R24).
 */

export type TRoundTrip =
  | { ok: true; document: TEmailDocument; changed: boolean }
  | { ok: false; reason: 'no-rows' | 'frame-changed' };

/** Ids for blocks made here: short, unused in the document, stable for the same input. */
const idMaker = (taken: Set<string>) => {
  let counter = 0;
  return () => {
    let id: string;
    do {
      counter += 1;
      id = `h${counter.toString(36)}`;
    } while (taken.has(id));
    taken.add(id);
    return id;
  };
};

const MARKER_ID = /^[a-z0-9]{1,24}$/;

/** Every `<!--sw:ID-->` and `<!--/sw:ID-->` of the text, in one pass. */
const markersOf = (rows: string) => {
  const markers: { at: number; end: number; id: string; isEnd: boolean }[] = [];
  let from = 0;
  for (;;) {
    const at = rows.indexOf('<!--', from);
    if (at === -1) return markers;
    const close = rows.indexOf('-->', at + 4);
    if (close === -1) return markers;
    const isEnd = rows.startsWith('<!--/sw:', at);
    if (isEnd || rows.startsWith('<!--sw:', at)) {
      const id = rows.slice(at + (isEnd ? 8 : 7), close);
      if (MARKER_ID.test(id)) markers.push({ at, end: close + 3, id, isEnd });
    }
    from = close + 3;
  }
};

/**
 * The rows region cut into pieces: each `<!--sw:ID-->…<!--/sw:ID-->` block, and the loose HTML
 * between. A start marker without its end is loose HTML like the rest. The markers are found
 * once and each end is looked at once, so hostile text costs linear time (R24).
 */
const piecesOf = (rows: string) => {
  const markers = markersOf(rows);
  // Each id's end markers, in order, with how many have been passed.
  const ends = new Map<string, { positions: number[]; next: number }>();
  markers.forEach((marker, index) => {
    if (!marker.isEnd) return;
    const entry = ends.get(marker.id) ?? { positions: [], next: 0 };
    entry.positions.push(index);
    ends.set(marker.id, entry);
  });
  const pieces: ({ kind: 'block'; id: string; html: string } | { kind: 'loose'; html: string })[] = [];
  let position = 0;
  let loose = '';
  for (let index = 0; index < markers.length; index++) {
    const marker = markers[index]!;
    if (marker.isEnd || marker.at < position) continue;
    const entry = ends.get(marker.id);
    while (entry && entry.next < entry.positions.length && entry.positions[entry.next]! < index) entry.next += 1;
    const endIndex = entry?.positions[entry.next];
    if (endIndex === undefined) continue;
    entry!.next += 1;
    const endMarker = markers[endIndex]!;
    loose += rows.slice(position, marker.at);
    if (loose) pieces.push({ kind: 'loose', html: loose });
    loose = '';
    pieces.push({ kind: 'block', id: marker.id, html: rows.slice(marker.end, endMarker.at) });
    position = endMarker.end;
    index = endIndex;
  }
  loose += rows.slice(position);
  if (loose) pieces.push({ kind: 'loose', html: loose });
  return pieces;
};

/** `html` as a document, given the document it was rendered from (see above). */
export const documentFromHtml = (html: string, previous: TEmailDocument): TRoundTrip => {
  if (html === renderEmail(previous)) return { ok: true, document: previous, changed: false };
  const frame = frameOf(previous);
  const startAt = html.indexOf(ROWS_START);
  const endAt = html.lastIndexOf(ROWS_END);
  if (startAt === -1 || endAt === -1 || endAt < startAt) return { ok: false, reason: 'no-rows' };
  const before = html.slice(0, startAt + ROWS_START.length);
  const after = html.slice(endAt);
  if (before !== frame.before || after !== frame.after) return { ok: false, reason: 'frame-changed' };

  const known = new Map(previous.blocks.map((block) => [block.id, block]));
  const used = new Set<string>();
  const nextId = idMaker(documentIds(previous));
  const blocks: TBlock[] = [];
  for (const piece of piecesOf(html.slice(startAt + ROWS_START.length, endAt))) {
    if (piece.kind === 'block') {
      const block = known.get(piece.id);
      if (block && !used.has(piece.id) && renderBlockRow(block, previous.style) === piece.html) {
        used.add(piece.id);
        blocks.push(block);
        continue;
      }
      const id = known.has(piece.id) && !used.has(piece.id) ? piece.id : nextId();
      used.add(id);
      blocks.push({ type: 'html', id, html: piece.html, row: true });
      continue;
    }
    if (piece.html.trim() === '') {
      // Whitespace between rows (a formatter's line breaks) means nothing to a table.
      continue;
    }
    blocks.push({ type: 'html', id: nextId(), html: piece.html, row: true });
  }
  return { ok: true, document: { ...previous, blocks }, changed: true };
};

/** Whether a message's HTML is what its document renders to (it can open in Visual mode as it is). */
export const isRenderOf = (html: string, document: TEmailDocument) => html === renderEmail(document);

/** The part of an HTML document inside `<body>` (the whole text when it has none), for an HTML block. */
export const bodyOf = (html: string) => {
  const lower = html.toLowerCase();
  const open = lower.indexOf('<body');
  if (open === -1) return html;
  const openEnd = lower.indexOf('>', open);
  const close = lower.lastIndexOf('</body');
  if (openEnd === -1) return html;
  const styles: string[] = [];
  // The head's styles go with the body: a message's look often lives there.
  let from = 0;
  for (;;) {
    const style = lower.indexOf('<style', from);
    if (style === -1 || style > open) break;
    const end = lower.indexOf('</style>', style);
    if (end === -1) break;
    styles.push(html.slice(style, end + '</style>'.length));
    from = end + 1;
  }
  return styles.join('') + html.slice(openEnd + 1, close === -1 ? html.length : close);
};
