import {
  DEFAULT_STYLE,
  documentIds,
  type TBlock,
  type TBlockType,
  type TColumn,
  type TContentBlock,
  type TEmailDocument,
  ZEmailDocument,
} from '@sendwell/contracts';

/**
 * The editor's operations on a document, as pure functions (each returns a new document): a
 * block is found by id wherever it is (the top level or a column), moved within its own list,
 * added after another or at the end, duplicated, removed.
 */

/** Where a block lives: the top level (`column` null) or a section's column. */
export type TPlace = { column: string | null };

let counter = 0;
/** A fresh id unused in the document. */
export const newId = (document: Pick<TEmailDocument, 'blocks'>) => {
  const taken = documentIds(document);
  let id: string;
  do {
    counter += 1;
    id = `${Date.now().toString(36).slice(-4)}${counter.toString(36)}`;
  } while (taken.has(id));
  return id;
};

export const ADDABLE: TBlockType[] = [
  'heading',
  'text',
  'image',
  'button',
  'section',
  'divider',
  'spacer',
  'social',
  'html',
  'footer',
];
/** What a column may hold: content blocks, no sections or footers. */
export const COLUMN_ADDABLE = ADDABLE.filter(
  (type) => type !== 'section' && type !== 'footer',
) as TContentBlock['type'][];

export const newBlock = (type: TBlockType, document: TEmailDocument, columns = 2): TBlock => {
  const id = newId(document);
  switch (type) {
    case 'heading':
      return { type, id, text: 'Your heading', level: 2, align: 'left', color: null };
    case 'text':
      return { type, id, html: '<p>Write your text here.</p>' };
    case 'image':
      return { type, id, src: '', alt: '', href: '', width: null, align: 'center' };
    case 'button':
      return {
        type,
        id,
        text: 'Read more',
        href: 'https://',
        background: document.style.linkColor,
        color: '#ffffff',
        radius: 6,
        align: 'left',
      };
    case 'divider':
      return { type, id, color: '#e4e7eb', thickness: 1 };
    case 'spacer':
      return { type, id, height: 24 };
    case 'social':
      return { type, id, align: 'center', links: [{ network: 'website', url: 'https://' }] };
    case 'html':
      return { type, id, html: '<p>Your HTML</p>', row: false };
    case 'footer':
      return {
        type,
        id,
        text: 'You receive this email because you signed up with us.',
        address: '',
        unsubscribeText: 'Unsubscribe',
      };
    case 'section': {
      const taken = { blocks: [{ id } as TBlock] };
      const made: TColumn[] = [];
      for (let index = 0; index < columns; index++) {
        const columnId = newId({ blocks: [...taken.blocks, ...made.map((column) => ({ id: column.id }) as TBlock)] });
        const textId = `${columnId}t`;
        made.push({ id: columnId, blocks: [{ type: 'text', id: textId, html: '<p>Column text.</p>' }] });
      }
      return { type, id, background: null, columns: made };
    }
  }
};

export const emptyDocument = (): TEmailDocument => ({
  version: 1,
  kind: 'email',
  style: { ...DEFAULT_STYLE },
  blocks: [],
});

/** A document to start from: a heading, a text and a footer. */
export const starterDocument = (): TEmailDocument => {
  const document = emptyDocument();
  document.blocks.push(newBlock('heading', document));
  document.blocks.push(newBlock('text', document));
  document.blocks.push(newBlock('footer', document));
  return document;
};

type TList = TBlock[] | TContentBlock[];

/** Applies `change` to the list that holds `id` (top level or a column); the rest is shared. */
const withListOf = (document: TEmailDocument, id: string, change: (list: TList) => TList): TEmailDocument => {
  if (document.blocks.some((block) => block.id === id))
    return { ...document, blocks: change(document.blocks) as TBlock[] };
  return {
    ...document,
    blocks: document.blocks.map((block) =>
      block.type === 'section' && block.columns.some((column) => column.blocks.some((child) => child.id === id))
        ? {
            ...block,
            columns: block.columns.map((column) =>
              column.blocks.some((child) => child.id === id)
                ? { ...column, blocks: change(column.blocks) as TContentBlock[] }
                : column,
            ),
          }
        : block,
    ),
  };
};

export const findBlock = (document: TEmailDocument, id: string): TBlock | null => {
  for (const block of document.blocks) {
    if (block.id === id) return block;
    if (block.type === 'section')
      for (const column of block.columns) for (const child of column.blocks) if (child.id === id) return child;
  }
  return null;
};

/** The block's position in its own list, and the list's length. */
export const positionOf = (document: TEmailDocument, id: string) => {
  let found = { index: -1, count: 0, column: null as string | null };
  withListOf(document, id, (list) => {
    found = { index: list.findIndex((block) => block.id === id), count: list.length, column: null };
    return list;
  });
  return found;
};

export const updateBlock = (document: TEmailDocument, id: string, patch: Partial<TBlock>) =>
  withListOf(
    document,
    id,
    (list) => list.map((block) => (block.id === id ? ({ ...block, ...patch } as TBlock) : block)) as TList,
  );

/** Moves a block `by` places within its list (−1 up, +1 down); at an end it stays. */
export const moveBlock = (document: TEmailDocument, id: string, by: number) =>
  withListOf(document, id, (list) => {
    const from = list.findIndex((block) => block.id === id);
    const to = from + by;
    if (from === -1 || to < 0 || to >= list.length) return list;
    const next = [...list];
    const [moved] = next.splice(from, 1);
    next.splice(to, 0, moved as never);
    return next as TList;
  });

/** Moves a block to another index of its list (a drop). */
export const moveBlockTo = (document: TEmailDocument, id: string, index: number) => {
  const { index: from } = positionOf(document, id);
  return from === -1 ? document : moveBlock(document, id, index - from);
};

export const removeBlock = (document: TEmailDocument, id: string) =>
  withListOf(document, id, (list) => list.filter((block) => block.id !== id) as TList);

/** A copy with fresh ids (its columns' blocks too), placed after the original. */
export const duplicateBlock = (document: TEmailDocument, id: string) => {
  const original = findBlock(document, id);
  if (!original) return document;
  let scratch: TEmailDocument = document;
  const fresh = () => {
    const made = newId(scratch);
    scratch = { ...scratch, blocks: [...scratch.blocks, { type: 'spacer', id: made, height: 4 }] };
    return made;
  };
  const copy: TBlock =
    original.type === 'section'
      ? {
          ...original,
          id: fresh(),
          columns: original.columns.map((column) => ({
            id: fresh(),
            blocks: column.blocks.map((child) => ({ ...child, id: fresh() })),
          })),
        }
      : { ...original, id: fresh() };
  return withListOf(document, id, (list) => {
    const at = list.findIndex((block) => block.id === id);
    const next = [...list];
    next.splice(at + 1, 0, copy as never);
    return next as TList;
  });
};

/** Adds a block at the end of the top level, or of a column. */
export const addBlock = (document: TEmailDocument, block: TBlock, columnId: string | null) => {
  if (columnId === null) return { ...document, blocks: [...document.blocks, block] };
  return {
    ...document,
    blocks: document.blocks.map((section) =>
      section.type === 'section'
        ? {
            ...section,
            columns: section.columns.map((column) =>
              column.id === columnId ? { ...column, blocks: [...column.blocks, block as TContentBlock] } : column,
            ),
          }
        : section,
    ),
  };
};

/** A stored document as the editor can open it; anything else (an older shape) opens as HTML. */
export const readDocument = (stored: unknown): TEmailDocument | null => {
  const parsed = ZEmailDocument.safeParse(stored);
  return parsed.success ? parsed.data : null;
};
