import { renderMergeFields, type TMergeRecipient } from '@sendwell/contracts';

/** The recipient the preview fills merge fields for. */
export const SAMPLE_RECIPIENT: TMergeRecipient = { email: 'ada@example.com', name: 'Ada Lovelace', fields: {} };

/**
 * The preview's own policy, on top of the iframe's empty sandbox: nothing loads but images,
 * styles and fonts, so a message can neither run script nor send form data or beacons (R15).
 */
export const PREVIEW_CSP = "default-src 'none'; img-src * data:; style-src 'unsafe-inline' *; font-src *";

const CSP_META = `<meta http-equiv="Content-Security-Policy" content="${PREVIEW_CSP}">`;

/**
 * The message as the sample recipient would see it, for an `<iframe sandbox="" srcdoc>`. The
 * policy goes first so it covers everything after it; after a doctype rather than before, so a
 * full document keeps its standards mode (the parser puts the meta into the implied head).
 */
export const previewDocument = (html: string, recipient: TMergeRecipient = SAMPLE_RECIPIENT, isDark = false) => {
  const filled = renderMergeFields(html, recipient, true);
  const head = isDark ? `${CSP_META}${DARK_STYLE}` : CSP_META;
  const doctype = /^\s*<!doctype[^>]*>/i.exec(filled);
  return doctype ? `${doctype[0]}${head}${filled.slice(doctype[0].length)}` : `${head}${filled}`;
};

/**
 * A dark-mode approximation: the colours turned round as Gmail's apps and Outlook.com do to a
 * message that sets its own light colours, pictures left as they are. Real clients differ;
 * this shows where light text on a light background, or a logo on white, would go wrong.
 */
const DARK_STYLE =
  '<style>html{filter:invert(1) hue-rotate(180deg);background:#fff}img,video,[style*="background-image"]{filter:invert(1) hue-rotate(180deg)}</style>';

/** A header line (subject) as the sample recipient would see it; shown as text, never as markup. */
export const previewText = (text: string, recipient: TMergeRecipient = SAMPLE_RECIPIENT) =>
  renderMergeFields(text, recipient, false);

/** An HTML file by its name or its type; the browser's type is empty for some extensions. */
export const isHtmlFile = (file: File) => /\.html?$/i.test(file.name) || file.type === 'text/html';
