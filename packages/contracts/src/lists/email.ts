/**
 * What an address on a list is, in one place: the import dialog's preview, the server's
 * file import, rows the browser posts and members added by hand all read cells with these
 * rules, so the dialog never promises what the server then refuses.
 *
 * Policy (ARCHITECTURE.md, lists):
 * - Domains may be internationalized (`bücher.example`, `пример.рф`) or already in A-label
 *   form (`xn--bcher-kva.example`, `.xn--p1ai`). Both are kept in ONE canonical form: the
 *   lower-case A-label (ASCII) form that every mail server and provider accepts, after the
 *   WHATWG URL host rules (UTS #46), so `kunde@bücher.example` and
 *   `kunde@xn--bcher-kva.example` are the same member.
 * - Local parts must be ASCII (RFC 5321 dot-atom). A UTF-8 local part (RFC 6531) is refused
 *   with its own reason: it can only be delivered over SMTPUTF8, which the providers we send
 *   through do not all offer, and a member who can never be reached is worse than a row the
 *   report names. Quoted local parts and IP-literal domains are refused too.
 * - Lengths are RFC 5321's, in octets of the stored form: local part ≤ 64, the whole
 *   address ≤ 254 (a path is ≤ 256 with its angle brackets), each label ≤ 63.
 * - A cell may hold the address alone, `<addr>`, `Name <addr>` or `"Last, First" <addr>`:
 *   the address is taken from the brackets, for every row alike.
 * - `mailto:addr` is a link, not an address: refused with its own reason rather than changed
 *   silently.
 */

/** Why a cell holds no address a list can keep; the import report gives one per skipped row. */
export const EMAIL_PROBLEMS = {
  missing: 'no email in the mapped column',
  invalid: 'invalid email address',
  mailto: 'a mailto: link, not an address (remove mailto: to import it)',
  nonAsciiLocalPart: 'non-ASCII characters before the @ (internationalized mailboxes are not accepted)',
} as const;
export type TEmailProblem = (typeof EMAIL_PROBLEMS)[keyof typeof EMAIL_PROBLEMS];

/** RFC 5321 §4.5.3.1.1: a local part of at most 64 octets. */
const MAX_LOCAL_PART = 64;
/** RFC 5321 §4.5.3.1.3: a path of 256 octets, less its angle brackets. */
const MAX_ADDRESS = 254;

// RFC 5321 dot-atom over ASCII atext.
const LOCAL_PART = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
// An ASCII host name: letters, digits and inner hyphens, labels of 1–63 octets; the top
// label is letters (2–63) or an A-label such as `xn--p1ai`.
const ASCII_DOMAIN =
  /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:[a-z]{2,63}|xn--[a-z0-9](?:[a-z0-9-]{0,57}[a-z0-9])?)$/;
// What an internationalized domain may hold before conversion: letters, marks and digits
// of any script, hyphens, and the dots (ASCII and the ideographic and full-width ones UTS #46
// maps to it). Anything else (spaces, `%`, `/`, `:`) is refused before a URL parser could
// decode or reinterpret it.
const UNICODE_DOMAIN = /^[\p{L}\p{M}\p{N}\-.\u3002\uFF0E\uFF61]+$/u;
const NON_ASCII = /[^\p{ASCII}]/u;

/**
 * The domain in lower-case A-label form, or null when it is not a host name mail can be
 * sent to. ASCII domains without A-labels are checked by pattern alone (the fast path a
 * million-row import takes); the others go through the URL host parser, which applies
 * UTS #46 (case folding, NFC, `。` as a dot) and Punycode, and refuses broken A-labels.
 */
export const canonicalDomain = (domain: string): string | null => {
  const lower = domain.toLowerCase();
  const isAscii = !NON_ASCII.test(lower);
  if (isAscii && !lower.includes('xn--')) return ASCII_DOMAIN.test(lower) ? lower : null;
  if (!UNICODE_DOMAIN.test(domain)) return null;
  let host: string;
  try {
    host = new URL(`http://${domain}/`).hostname;
  } catch {
    return null;
  }
  return ASCII_DOMAIN.test(host) ? host : null;
};

export type TEmailReading = { email: string; problem: null } | { email: null; problem: TEmailProblem };

const problem = (found: TEmailProblem): TEmailReading => ({ email: null, problem: found });

/** A bare address (`local@domain`) in its stored form, or why it is not one. */
const readAddress = (address: string): TEmailReading => {
  const at = address.lastIndexOf('@');
  if (at <= 0 || at === address.length - 1) return problem(EMAIL_PROBLEMS.invalid);
  const localPart = address.slice(0, at);
  if (!LOCAL_PART.test(localPart)) {
    return problem(NON_ASCII.test(localPart) ? EMAIL_PROBLEMS.nonAsciiLocalPart : EMAIL_PROBLEMS.invalid);
  }
  if (localPart.length > MAX_LOCAL_PART) return problem(EMAIL_PROBLEMS.invalid);
  const domain = canonicalDomain(address.slice(at + 1));
  if (domain === null) return problem(EMAIL_PROBLEMS.invalid);
  const email = `${localPart}@${domain}`;
  // The stored form is ASCII, so its length in characters is its length in octets.
  return email.length <= MAX_ADDRESS ? { email, problem: null } : problem(EMAIL_PROBLEMS.invalid);
};

/**
 * The display name before `<addr>`: nothing, a quoted string (`"Last, First"`, with `\"`
 * escapes) or words without quotes or brackets.
 */
const isDisplayName = (text: string) => {
  const name = text.trim();
  if (name === '') return true;
  if (name.startsWith('"')) return /^"(?:[^"\\]|\\.)*"$/.test(name);
  return !/["<>]/.test(name);
};

/**
 * Reads one CSV cell as an address: trims it, takes the address out of `<addr>`,
 * `Name <addr>` or `"Last, First" <addr>`, and answers the stored form (lower-case A-label
 * domain) or the reason the row is skipped.
 */
export const readEmailCell = (cell: string): TEmailReading => {
  const text = cell.trim();
  if (text === '') return problem(EMAIL_PROBLEMS.missing);
  let address = text;
  if (text.endsWith('>')) {
    const open = text.lastIndexOf('<');
    if (open === -1 || !isDisplayName(text.slice(0, open))) return problem(EMAIL_PROBLEMS.invalid);
    address = text.slice(open + 1, -1).trim();
  }
  if (/^mailto:/i.test(address)) return problem(EMAIL_PROBLEMS.mailto);
  return readAddress(address);
};

/** The stored form of a bare address (no brackets or name), or null when a list cannot keep it. */
export const canonicalEmail = (address: string): string | null => readAddress(address.trim()).email;

/** Whether a bare address can be put on a list (see `readEmailCell` for cells with names). */
export const isValidEmail = (address: string) => canonicalEmail(address) !== null;

/** A cell's address in its stored form, or the cell trimmed when it holds none (which `isValidEmail` then refuses). */
export const cleanEmail = (cell: string) => readEmailCell(cell).email ?? cell.trim();

/**
 * Whether a cell looks like someone meant an address, valid or not (`ann@example.com`,
 * `john.smith.example.com`, `<…>`, `mailto:…`): a header row names its columns with words
 * (`Email`, `E-mail Address`, `E-mail 1 - Value`), so such a cell on the first row says the
 * row is a member with a typo, not a header.
 */
export const looksLikeAddress = (cell: string) => {
  const text = cell.trim();
  return text.includes('@') || /^mailto:/i.test(text) || /^[^\s.]+(?:\.[^\s.]+)+$/.test(text) || /<[^<>]*>$/.test(text);
};
