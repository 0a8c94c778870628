import { z } from 'zod';
import { userHtml } from '../html/html-bounds';

/**
 * The email builder's document (issue 46): what the visual editor edits, stored beside the
 * HTML it renders to (`renderEmail`). The engine never reads it: it composes from the HTML,
 * as for a message written by hand. Bounded on every side (blocks, columns, text), so a
 * document posted by anyone costs little to check and to render: sections hold columns,
 * columns hold content blocks, and nothing nests deeper.
 */

export const DOCUMENT_LIMITS = {
  /** Blocks at the top level, and in one column. */
  blocks: 200,
  columnBlocks: 50,
  /** The HTML of one text or HTML block. */
  blockHtml: 200_000,
  text: 2_000,
  url: 2_000,
  socialLinks: 8,
} as const;

const ZId = z.string().regex(/^[a-z0-9]{1,24}$/);
const ZColor = z.string().regex(/^#[0-9a-fA-F]{6}$/, { message: 'A colour is written #rrggbb.' });
const ZAlign = z.enum(['left', 'center', 'right']);
const ZPlain = z.string().max(DOCUMENT_LIMITS.text);

/** A link a block points to: the web, mail, a phone, a merge field (`{{unsubscribe_url}}`), or nothing yet. */
export const isSafeHref = (value: string) => {
  const trimmed = value.trim();
  return trimmed === '' || /^(https?:|mailto:|tel:|\{\{)/i.test(trimmed);
};
const ZHref = z
  .string()
  .max(DOCUMENT_LIMITS.url)
  .refine(isSafeHref, { message: 'A link starts with https://, http://, mailto: or tel:.' });
/** An image's address: the web (our own /media/ included) or a merge field. */
const ZImageSrc = z
  .string()
  .max(DOCUMENT_LIMITS.url)
  .refine((value) => value.trim() === '' || /^(https?:\/\/|\{\{)/i.test(value.trim()), {
    message: 'An image address starts with https:// or http://.',
  });

export const FONT_STACKS = {
  sans: 'Helvetica, Arial, sans-serif',
  modern: "'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif",
  serif: "Georgia, 'Times New Roman', serif",
  mono: "'Courier New', Courier, monospace",
} as const;
export type TFontName = keyof typeof FONT_STACKS;

export const ZEmailStyle = z.object({
  /** The message's width on a wide screen, in CSS pixels; narrower screens stack columns. */
  width: z.number().int().min(480).max(800),
  background: ZColor,
  contentBackground: ZColor,
  textColor: ZColor,
  linkColor: ZColor,
  font: z.enum(Object.keys(FONT_STACKS) as [TFontName, ...TFontName[]]),
});
export type TEmailStyle = z.infer<typeof ZEmailStyle>;

export const ZHeadingBlock = z.object({
  type: z.literal('heading'),
  id: ZId,
  text: ZPlain,
  level: z.union([z.literal(1), z.literal(2), z.literal(3)]),
  align: ZAlign,
  color: ZColor.nullable(),
});

/** Rich text as the editor writes it: paragraphs, lists, bold, italic, links, alignment, colour. */
export const ZTextBlock = z.object({
  type: z.literal('text'),
  id: ZId,
  html: userHtml(DOCUMENT_LIMITS.blockHtml),
});

export const ZImageBlock = z.object({
  type: z.literal('image'),
  id: ZId,
  src: ZImageSrc,
  alt: ZPlain,
  href: ZHref,
  /** Pixels; null fills the column. */
  width: z.number().int().min(16).max(800).nullable(),
  align: ZAlign,
});

export const ZButtonBlock = z.object({
  type: z.literal('button'),
  id: ZId,
  text: z.string().max(200),
  href: ZHref,
  background: ZColor,
  color: ZColor,
  radius: z.number().int().min(0).max(40),
  align: ZAlign,
});

export const ZDividerBlock = z.object({
  type: z.literal('divider'),
  id: ZId,
  color: ZColor,
  thickness: z.number().int().min(1).max(10),
});

export const ZSpacerBlock = z.object({
  type: z.literal('spacer'),
  id: ZId,
  height: z.number().int().min(4).max(200),
});

export const SOCIAL_NETWORKS = ['website', 'facebook', 'instagram', 'x', 'linkedin', 'youtube', 'tiktok'] as const;
export const SOCIAL_LABELS: Record<(typeof SOCIAL_NETWORKS)[number], string> = {
  website: 'Website',
  facebook: 'Facebook',
  instagram: 'Instagram',
  x: 'X',
  linkedin: 'LinkedIn',
  youtube: 'YouTube',
  tiktok: 'TikTok',
};
export const ZSocialBlock = z.object({
  type: z.literal('social'),
  id: ZId,
  links: z.array(z.object({ network: z.enum(SOCIAL_NETWORKS), url: ZHref })).max(DOCUMENT_LIMITS.socialLinks),
  align: ZAlign,
});

/**
 * HTML for experts, written out as it stands. `row` marks HTML that is a whole row of the
 * message's table as the user wrote it in HTML mode (what `blocksFromHtml` keeps of an edited
 * or unknown part), emitted in place of a block's row rather than inside one.
 */
export const ZHtmlBlock = z.object({
  type: z.literal('html'),
  id: ZId,
  html: userHtml(DOCUMENT_LIMITS.blockHtml),
  row: z.boolean().default(false),
});

/** The unsubscribe link and the sender's postal address, which CAN-SPAM and Gmail's and Yahoo's bulk rules ask for. */
export const ZFooterBlock = z.object({
  type: z.literal('footer'),
  id: ZId,
  text: ZPlain,
  address: ZPlain,
  unsubscribeText: z.string().max(200),
});

/** The blocks a column holds: every block but a section and the footer. */
const CONTENT_BLOCKS = [
  ZHeadingBlock,
  ZTextBlock,
  ZImageBlock,
  ZButtonBlock,
  ZDividerBlock,
  ZSpacerBlock,
  ZSocialBlock,
  ZHtmlBlock,
] as const;

export const ZContentBlock = z.discriminatedUnion('type', CONTENT_BLOCKS);
export type TContentBlock = z.infer<typeof ZContentBlock>;

export const ZColumn = z.object({
  id: ZId,
  blocks: z.array(ZContentBlock).max(DOCUMENT_LIMITS.columnBlocks),
});
export type TColumn = z.infer<typeof ZColumn>;

/** One to three columns side by side on a wide screen, one under another on a phone. */
export const ZSectionBlock = z.object({
  type: z.literal('section'),
  id: ZId,
  columns: z.array(ZColumn).min(1).max(3),
  background: ZColor.nullable(),
});

export const ZBlock = z.discriminatedUnion('type', [...CONTENT_BLOCKS, ZSectionBlock, ZFooterBlock]);
export type TBlock = z.infer<typeof ZBlock>;
export type TBlockType = TBlock['type'];
export type TSectionBlock = z.infer<typeof ZSectionBlock>;

export const ZEmailDocument = z.object({
  version: z.literal(1),
  /**
   * `email`: a whole message (head, page background, the message's column). `fragment`: the
   * blocks' table alone, for HTML that goes inside another message (a drip signature).
   */
  kind: z.enum(['email', 'fragment']).default('email'),
  style: ZEmailStyle,
  blocks: z.array(ZBlock).max(DOCUMENT_LIMITS.blocks),
});
export type TEmailDocument = z.infer<typeof ZEmailDocument>;
export type TEmailDocumentInput = z.input<typeof ZEmailDocument>;

/** A document kept beside a message's HTML; null for a message written in HTML alone. */
export const ZStoredDocument = ZEmailDocument.nullable().default(null);

/** Every block id of a document, columns' blocks included (new ids must differ from all of them). */
export const documentIds = (document: Pick<TEmailDocument, 'blocks'>) => {
  const ids = new Set<string>();
  for (const block of document.blocks) {
    ids.add(block.id);
    if (block.type === 'section') {
      for (const column of block.columns) {
        ids.add(column.id);
        for (const child of column.blocks) ids.add(child.id);
      }
    }
  }
  return ids;
};

export const DEFAULT_STYLE: TEmailStyle = {
  width: 600,
  background: '#f4f4f5',
  contentBackground: '#ffffff',
  textColor: '#1f2933',
  linkColor: '#1c64d1',
  font: 'sans',
};

export const BLOCK_TITLES: Record<TBlockType, string> = {
  heading: 'Heading',
  text: 'Text',
  image: 'Image',
  button: 'Button',
  divider: 'Divider',
  spacer: 'Spacer',
  social: 'Social links',
  html: 'HTML',
  section: 'Columns',
  footer: 'Footer',
};
