import { renderMergeFields, type TMergeRecipient } from '@sendwell/contracts';
import { framedDocument, PREVIEW_CSP } from '../../components/PreviewFrame';

export { PREVIEW_CSP };

/** The recipient the preview fills merge fields for. */
export const SAMPLE_RECIPIENT: TMergeRecipient = { email: 'ada@example.com', name: 'Ada Lovelace', fields: {} };

/** The message as the sample recipient would see it, for an `<iframe sandbox="" srcdoc>` (`framedDocument`). */
export const previewDocument = (html: string, recipient: TMergeRecipient = SAMPLE_RECIPIENT, isDark = false) =>
  framedDocument(renderMergeFields(html, recipient, true), isDark ? DARK_STYLE : '');

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
