import type { CSSProperties } from 'react';

/**
 * The preview's own policy, on top of the iframe's empty sandbox: nothing loads but images,
 * styles and fonts, so a message can neither run script nor send form data or beacons (R15).
 */
export const PREVIEW_CSP = "default-src 'none'; img-src * data:; style-src 'unsafe-inline' *; font-src *";

const CSP_META = `<meta http-equiv="Content-Security-Policy" content="${PREVIEW_CSP}">`;

/**
 * User HTML as the document of a sandboxed frame: the policy first, so it covers everything
 * after it, then `head` (styles of the preview's own); after a doctype rather than before, so
 * a full document keeps its standards mode (the parser puts the meta into the implied head).
 */
export const framedDocument = (html: string, head = '') => {
  const doctype = /^\s*<!doctype[^>]*>/i.exec(html);
  return doctype ? `${doctype[0]}${CSP_META}${head}${html.slice(doctype[0].length)}` : `${CSP_META}${head}${html}`;
};

/**
 * User HTML (an email, a block of one) shown where it is safe to show it: an iframe with an
 * empty sandbox (no scripts, no same origin) and the policy above. Never add `allow-scripts`
 * or `allow-same-origin` here: together they let a message reach the signed-in page (R15).
 * A new frame per document: Chromium can leave a sandboxed frame blank (complete, but never
 * laid out) when its srcdoc changes again while the last one is committing.
 */
export const PreviewFrame = ({
  title,
  html,
  height,
  style,
}: {
  title: string;
  html: string;
  height: number;
  style?: CSSProperties;
}) => {
  const srcDoc = framedDocument(html);
  return (
    <iframe
      key={srcDoc}
      title={title}
      sandbox=""
      referrerPolicy="no-referrer"
      srcDoc={srcDoc}
      style={{ display: 'block', width: '100%', height, border: 0, background: '#fff', ...style }}
    />
  );
};
