/**
 * Sendwell's own reading of a message's headers and content, the checks that need nothing
 * but the message: no DNS, no content engine, no mailbox. The spam test runs them on what
 * arrived, the pre-send check on what is about to be sent, and both get the same findings
 * with the same points. Each check says what it found, what it costs and what to do.
 *
 * One file per subject: `header-checks.ts` (the header lines as they arrived),
 * `content-checks.ts` (the parts, size, GTUBE), `html-checks.ts` (the HTML and its links),
 * `addresses.ts` (mailboxes, Message-IDs, domains and hosts read as RFC 5322 and URLs write
 * them); the MIME tree is read by the one reader, `platform/mime.ts`.
 *
 * Everything here reads text a user or a stranger wrote (R24): no pattern with nested
 * quantifiers over unbounded input, header values and link texts clipped before they are read.
 */

export { readMailbox } from './addresses';
export { check, type TMessageContext } from './check';
export { contentChecks, GTUBE, mimeLeaves } from './content-checks';
export { headerChecks, headersOf, readDate } from './header-checks';
export { readHtml } from './html-checks';
