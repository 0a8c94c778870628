import {
  FONT_STACKS,
  SOCIAL_LABELS,
  type TBlock,
  type TContentBlock,
  type TEmailDocument,
  type TEmailStyle,
  type TSectionBlock,
} from './document';

/**
 * A builder document as email HTML (issue 46): tables and inline styles, which every client
 * lays out (Outlook's Word engine included), with columns as "hybrid" blocks: inline blocks
 * of a fixed greatest width that wrap one under another on a narrow screen even where a
 * client ignores media queries, a media query that makes them full width where it does not,
 * and ghost tables inside `<!--[if mso]>` comments that hold them side by side in Outlook.
 *
 * Each top-level block's row sits between `<!--sw:ID-->` and `<!--/sw:ID-->`, and all rows
 * between `<!--sw:start-->` and `<!--sw:end-->`: that is how HTML edited by hand is read
 * back into blocks (`documentFromHtml`), the parts that were not changed as they were.
 */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** Text or an attribute's value as HTML. */
export const escapeText = (value: string) => value.replace(/[&<>"']/g, (character) => ESCAPES[character]!);

/** Where the rows begin and end, and each block's bounds. */
export const ROWS_START = '<!--sw:start-->';
export const ROWS_END = '<!--sw:end-->';
export const blockStart = (id: string) => `<!--sw:${id}-->`;
export const blockEnd = (id: string) => `<!--/sw:${id}-->`;

type TContext = { style: TEmailStyle; font: string; width: number };

const HEADING_SIZES = { 1: 28, 2: 22, 3: 18 } as const;

/**
 * The editor's rich text with the inline styles clients need: paragraph and list margins
 * (each client has its own defaults), link colour. One pass over the tags; a tag that
 * already has a style keeps it first, so alignment and colour the user chose win.
 */
const styledText = (html: string, context: TContext) =>
  html.replace(/<(p|a|ul|ol|li|h[1-3])(\s[^<>]*)?>/gi, (_tag, name: string, attributes: string | undefined) => {
    const lower = name.toLowerCase();
    const extra =
      lower === 'p'
        ? 'margin:0 0 12px'
        : lower === 'a'
          ? `color:${context.style.linkColor};text-decoration:underline`
          : lower === 'li'
            ? 'margin:0 0 4px'
            : lower.startsWith('h')
              ? 'margin:0 0 12px;line-height:1.3'
              : 'margin:0 0 12px;padding-left:24px';
    const attrs = attributes ?? '';
    const styled = /\sstyle="/i.test(attrs)
      ? attrs.replace(/\sstyle="/i, (match) => `${match}${extra};`)
      : `${attrs} style="${extra}"`;
    return `<${name}${styled}>`;
  });

const button = (block: Extract<TBlock, { type: 'button' }>, context: TContext) => {
  const text = escapeText(block.text || 'Button');
  const radius = `${block.radius}px`;
  return (
    `<table role="presentation" cellpadding="0" cellspacing="0" border="0"${block.align === 'center' ? ' align="center" style="margin:0 auto"' : ` align="${block.align}"`}>` +
    `<tr><td align="center" bgcolor="${block.background}" style="border-radius:${radius};background:${block.background};mso-padding-alt:12px 28px">` +
    `<a href="${escapeText(block.href.trim() || '#')}" style="display:inline-block;padding:12px 28px;font-family:${escapeText(context.font)};font-size:16px;font-weight:700;line-height:1.2;color:${block.color};text-decoration:none;border-radius:${radius}">${text}</a>` +
    '</td></tr></table>'
  );
};

const image = (block: Extract<TBlock, { type: 'image' }>, context: TContext) => {
  if (!block.src.trim()) return '';
  const width = Math.min(block.width ?? context.width, context.width);
  const margin = block.align === 'center' ? '0 auto' : block.align === 'right' ? '0 0 0 auto' : '0';
  const img = `<img src="${escapeText(block.src.trim())}" alt="${escapeText(block.alt)}" width="${width}" style="display:block;width:100%;max-width:${width}px;height:auto;border:0;outline:none;text-decoration:none;margin:${margin}">`;
  return block.href.trim() ? `<a href="${escapeText(block.href.trim())}" style="display:block">${img}</a>` : img;
};

const social = (block: Extract<TBlock, { type: 'social' }>, context: TContext) =>
  block.links
    .filter((link) => link.url.trim())
    .map(
      (link) =>
        `<a href="${escapeText(link.url.trim())}" style="color:${context.style.linkColor};font-family:${escapeText(context.font)};font-size:14px;font-weight:700;text-decoration:none">${SOCIAL_LABELS[link.network]}</a>`,
    )
    .join(`<span style="color:#9aa5b1;font-size:14px">&nbsp;&nbsp;·&nbsp;&nbsp;</span>`);

/** A block's content, for a cell `context.width` pixels wide. */
const content = (block: TContentBlock | Extract<TBlock, { type: 'footer' }>, context: TContext): string => {
  const font = escapeText(context.font);
  switch (block.type) {
    case 'heading': {
      const size = HEADING_SIZES[block.level];
      return `<h${block.level} style="margin:0;font-family:${font};font-size:${size}px;line-height:1.25;font-weight:700;color:${block.color ?? context.style.textColor};text-align:${block.align}">${escapeText(block.text)}</h${block.level}>`;
    }
    case 'text':
      return `<div style="font-family:${font};font-size:16px;line-height:1.6;color:${context.style.textColor}">${styledText(block.html, context)}</div>`;
    case 'image':
      return image(block, context);
    case 'button':
      return button(block, context);
    case 'divider':
      return `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0"><tr><td style="border-top:${block.thickness}px solid ${block.color};font-size:0;line-height:0">&nbsp;</td></tr></table>`;
    case 'spacer':
      return `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0"><tr><td height="${block.height}" style="height:${block.height}px;font-size:0;line-height:0">&nbsp;</td></tr></table>`;
    case 'social':
      return social(block, context);
    case 'html':
      return block.html;
    case 'footer': {
      const lines = [block.text, block.address].filter((line) => line.trim()).map(escapeText);
      const unsubscribe = `<a href="{{unsubscribe_url}}" style="color:#52606d;text-decoration:underline">${escapeText(block.unsubscribeText || 'Unsubscribe')}</a>`;
      return `<p style="margin:0;font-family:${font};font-size:12px;line-height:1.6;color:#52606d;text-align:center">${[...lines, unsubscribe].join('<br>')}</p>`;
    }
  }
};

const alignOf = (block: TContentBlock | Extract<TBlock, { type: 'footer' }>) =>
  'align' in block ? block.align : block.type === 'footer' ? 'center' : 'left';

const paddingOf = (block: TContentBlock | Extract<TBlock, { type: 'footer' }>, inColumn: boolean) =>
  block.type === 'spacer' ? '0' : inColumn ? '8px 12px' : '12px 24px';

/** A block as a row of a table whose cells are `context.width` wide inside their padding. */
const row = (block: TContentBlock | Extract<TBlock, { type: 'footer' }>, context: TContext, inColumn: boolean) =>
  block.type === 'html' && block.row
    ? block.html
    : `<tr><td align="${alignOf(block)}" style="padding:${paddingOf(block, inColumn)}">${content(block, context)}</td></tr>`;

const section = (block: TSectionBlock, context: TContext) => {
  const count = block.columns.length;
  const columnWidth = Math.floor((context.style.width - 24) / count);
  const inner: TContext = { ...context, width: columnWidth - 24 };
  const columns = block.columns.map(
    (column) =>
      `<div class="sw-col" style="display:inline-block;width:100%;max-width:${columnWidth}px;vertical-align:top">` +
      '<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0">' +
      column.blocks.map((child) => row(child, inner, true)).join('') +
      '</table></div>',
  );
  const ghostCell = `<td width="${columnWidth}" valign="top" style="width:${columnWidth}px">`;
  const background = block.background ? `background:${block.background};` : '';
  return (
    `<tr><td align="center" style="${background}padding:8px 12px;font-size:0">` +
    `<!--[if mso]><table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0"><tr>${ghostCell}<![endif]-->` +
    columns.join(`<!--[if mso]></td>${ghostCell}<![endif]-->`) +
    '<!--[if mso]></td></tr></table><![endif]-->' +
    '</td></tr>'
  );
};

/** One top-level block's row, without its markers. */
export const renderBlockRow = (block: TBlock, style: TEmailStyle) => {
  const context: TContext = { style, font: FONT_STACKS[style.font], width: style.width - 48 };
  return block.type === 'section' ? section(block, context) : row(block, context, false);
};

/** What the rows sit inside: the head, the page's background and the message's column. */
export const renderFrame = (style: TEmailStyle) => {
  const font = escapeText(FONT_STACKS[style.font]);
  const head =
    '<!DOCTYPE html><html lang="en" xmlns="http://www.w3.org/1999/xhtml" xmlns:v="urn:schemas-microsoft-com:vml" xmlns:o="urn:schemas-microsoft-com:office:office"><head>' +
    '<meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta http-equiv="X-UA-Compatible" content="IE=edge">' +
    '<meta name="x-apple-disable-message-reformatting"><meta name="color-scheme" content="light"><meta name="supported-color-schemes" content="light">' +
    '<title></title>' +
    '<!--[if mso]><noscript><xml><o:OfficeDocumentSettings><o:PixelsPerInch>96</o:PixelsPerInch></o:OfficeDocumentSettings></xml></noscript><![endif]-->' +
    `<style>body{margin:0;padding:0;width:100%;-webkit-text-size-adjust:100%}table{border-collapse:collapse}img{-ms-interpolation-mode:bicubic}a{color:${style.linkColor}}` +
    `@media (max-width:${style.width + 20}px){.sw-wrap{width:100%!important}.sw-col{max-width:100%!important}}</style></head>`;
  const open =
    `<body style="margin:0;padding:0;background:${style.background}">` +
    `<div role="article" aria-roledescription="email" lang="en" style="background:${style.background};font-family:${font}">` +
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="background:${style.background}"><tr><td align="center" style="padding:24px 8px">` +
    `<!--[if mso]><table role="presentation" width="${style.width}" align="center" cellpadding="0" cellspacing="0" border="0"><tr><td><![endif]-->` +
    `<table role="presentation" class="sw-wrap" width="${style.width}" cellpadding="0" cellspacing="0" border="0" style="width:${style.width}px;max-width:100%;background:${style.contentBackground}">`;
  const close = '</table><!--[if mso]></td></tr></table><![endif]--></td></tr></table></div></body></html>';
  return { before: `${head}${open}${ROWS_START}`, after: `${ROWS_END}${close}` };
};

/** A fragment's frame: the blocks' table alone, as wide as a message's column at most. */
const fragmentFrame = (style: TEmailStyle) => ({
  before: `<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="width:100%;max-width:${style.width}px">${ROWS_START}`,
  after: `${ROWS_END}</table>`,
});

/** What a document's rows sit inside. */
export const frameOf = (document: Pick<TEmailDocument, 'kind' | 'style'>) =>
  document.kind === 'fragment' ? fragmentFrame(document.style) : renderFrame(document.style);

/** The whole message (or fragment). */
export const renderEmail = (document: TEmailDocument) => {
  const frame = frameOf(document);
  const rows = document.blocks
    .map((block) => `${blockStart(block.id)}${renderBlockRow(block, document.style)}${blockEnd(block.id)}`)
    .join('');
  return `${frame.before}${rows}${frame.after}`;
};
