/**
 * The tasks the CPU pool's threads run (`platform/cpu-pool.ts`): heavy message work kept off
 * the event loop (R40). Each is pure: what it needs comes in its input (a message's bytes
 * arrive as a Uint8Array, cloned across the thread), and what it gives back is plain data.
 * A thread loads only this file and what it imports: no database, no platform.
 */
import type { TMessageContext } from './modules/spam-test/message-checks';
import type { TMessageContent } from './providers/mail';

/** A send's plain-text part from its HTML (`delivery/text-part.ts`). */
export const textPart = async (html: string) => (await import('./modules/delivery/text-part')).textPartOf(html);

/** The web links of HTML and where each is written, for click tracking (`delivery/tracking-links.ts`). */
export const webHrefs = async (html: string) => (await import('./modules/delivery/tracking-links')).webHrefsOf(html);

/** A composed message built into MIME as the SMTP transport builds it (the pre-send check reads it). */
export const buildMime = async (message: TMessageContent) =>
  new Uint8Array(await (await import('./providers/mime-build')).buildMime(message));

const bufferOf = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** A message read as a receiver reads it, with Sendwell's own findings (`spam-test/analysis.ts`). */
export const readOwnChecks = async ({ raw, context }: { raw: Uint8Array; context: TMessageContext }) =>
  (await import('./modules/spam-test/analysis')).readOwnChecks(bufferOf(raw), context);

/** What the test inbox keeps of a message besides its bytes: subject, text and HTML as written. */
export const readInboxMessage = async (raw: Uint8Array) => {
  const { simpleParser } = await import('mailparser');
  // The parts the sender wrote; no text made from the HTML (html-to-text is what a bomb stalls).
  const mail = await simpleParser(bufferOf(raw), {
    skipImageLinks: true,
    skipHtmlToText: true,
    skipTextToHtml: true,
    skipTextLinks: true,
  });
  return {
    subject: mail.subject ?? '',
    text: mail.text ?? null,
    html: typeof mail.html === 'string' ? mail.html : null,
  };
};
