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
export const previewDocument = (html: string) => {
  const filled = renderMergeFields(html, SAMPLE_RECIPIENT, true);
  const doctype = /^\s*<!doctype[^>]*>/i.exec(filled);
  return doctype ? `${doctype[0]}${CSP_META}${filled.slice(doctype[0].length)}` : `${CSP_META}${filled}`;
};

/** A header line (subject) as the sample recipient would see it; shown as text, never as markup. */
export const previewText = (text: string) => renderMergeFields(text, SAMPLE_RECIPIENT, false);

/** An HTML file by its name or its type; the browser's type is empty for some extensions. */
export const isHtmlFile = (file: File) => /\.html?$/i.test(file.name) || file.type === 'text/html';
