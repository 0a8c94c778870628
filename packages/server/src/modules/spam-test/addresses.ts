import { getDomain, parse as parseHost } from 'tldts';
import { clip } from './check';

/**
 * The words of RFC 5322 and URLs the checks read strictly, as receivers read them:
 * comments and quoted strings, mailboxes, Message-IDs, domains and the hosts of links. Each
 * reader takes text a stranger wrote (R24): values are clipped before they are read, and no
 * pattern has nested quantifiers over unbounded input.
 */

const ATEXT = "A-Za-z0-9!#$%&'*+/=?^_`{|}~\\u0080-\\uffff-";
const DOT_ATOM = new RegExp(`^[${ATEXT}]+(?:\\.[${ATEXT}]+)*$`);
const LABEL = /^[A-Za-z0-9\u0080-\uffff](?:[A-Za-z0-9\u0080-\uffff-]{0,61}[A-Za-z0-9\u0080-\uffff])?$/;

/** Whether `domain` is a host name a receiver can look up: dot-separated labels, at least two. */
const isDomainName = (domain: string) => {
  const labels = domain.split('.');
  return domain.length <= 253 && labels.length >= 2 && labels.every((label) => LABEL.test(label));
};

/** Reads one quoted-string from `text` at `start` (a `"`); the index after it, or -1 when it never closes. */
const quotedEnd = (text: string, start: number) => {
  for (let index = start + 1; index < text.length; index++) {
    if (text[index] === '\\') index++;
    else if (text[index] === '"') return index + 1;
  }
  return -1;
};

/** Why `spec` is not an addr-spec (local@domain), or null when it is. */
const addrSpecProblem = (spec: string): string | null => {
  if (!spec) return 'the address is empty';
  let local: string;
  let rest: string;
  if (spec.startsWith('"')) {
    const end = quotedEnd(spec, 0);
    if (end === -1) return 'a quote in the address is never closed';
    local = spec.slice(0, end);
    rest = spec.slice(end);
    if (!rest.startsWith('@')) return 'the address has no @';
    rest = rest.slice(1);
  } else {
    const at = spec.indexOf('@');
    if (at === -1) return 'the address has no @';
    local = spec.slice(0, at);
    rest = spec.slice(at + 1);
    if (/\s/.test(local)) return 'the part before the @ holds a space';
    if (!local) return 'nothing comes before the @';
    if (!DOT_ATOM.test(local)) return 'the part before the @ holds characters an address cannot have unquoted';
  }
  if (rest.includes('@')) return 'the address holds more than one @';
  if (/\s/.test(rest)) return 'the domain holds a space';
  if (!isDomainName(rest)) return `"${rest}" is not a domain name`;
  return null;
};

/** Strips RFC 5322 comments (parenthesised, outside quotes) from a header value. */
export const withoutComments = (value: string) => {
  let out = '';
  let depth = 0;
  for (let index = 0; index < value.length; index++) {
    const character = value[index]!;
    if (depth === 0 && character === '"') {
      const end = quotedEnd(value, index);
      if (end === -1) return `${out}${value.slice(index)}`;
      out += value.slice(index, end);
      index = end - 1;
    } else if (character === '\\' && depth > 0) index++;
    else if (character === '(') depth++;
    else if (character === ')' && depth > 0) depth--;
    else if (depth === 0) out += character;
  }
  return out;
};

/** Splits an address list at commas outside quotes and angle brackets. */
const splitAddressList = (value: string) => {
  const items: string[] = [];
  let current = '';
  let inAngle = false;
  for (let index = 0; index < value.length; index++) {
    const character = value[index]!;
    if (character === '"') {
      const end = quotedEnd(value, index);
      if (end === -1) {
        current += value.slice(index);
        break;
      }
      current += value.slice(index, end);
      index = end - 1;
    } else if (character === '<') {
      inAngle = true;
      current += character;
    } else if (character === '>') {
      inAngle = false;
      current += character;
    } else if (character === ',' && !inAngle) {
      items.push(current);
      current = '';
    } else current += character;
  }
  items.push(current);
  return items.map((item) => item.trim()).filter(Boolean);
};

/** Why a display name is not an RFC 5322 phrase (atoms and quoted strings), or null. */
const phraseProblem = (phrase: string): string | null => {
  for (let index = 0; index < phrase.length; index++) {
    const character = phrase[index]!;
    if (character === '"') {
      const end = quotedEnd(phrase, index);
      if (end === -1) return 'a quote in the name is never closed';
      index = end - 1;
    } else if (/[()<>[\]:;@\\,"]/.test(character)) return `the name holds an unquoted "${character}"`;
  }
  return null;
};

type TMailbox = { address: string; problem: null } | { address: null; problem: string };

/** One mailbox (`Name <local@domain>` or `local@domain`) read strictly, as RFC 5322 and Gmail read it. */
export const readMailbox = (value: string): TMailbox => {
  const items = splitAddressList(withoutComments(value.slice(0, 2_000)));
  if (items.length === 0) return { address: null, problem: 'it names no address' };
  if (items.length > 1) return { address: null, problem: 'it names more than one address' };
  const item = items[0]!;
  const open = item.lastIndexOf('<');
  if (open === -1) {
    if (item.includes('>')) return { address: null, problem: 'a ">" has no "<"' };
    const problem = addrSpecProblem(item);
    return problem ? { address: null, problem } : { address: item, problem: null };
  }
  if (!item.endsWith('>')) return { address: null, problem: 'the "<" of the address is never closed' };
  const name = item.slice(0, open);
  const spec = item.slice(open + 1, -1).trim();
  const problem = phraseProblem(name) ?? addrSpecProblem(spec);
  return problem ? { address: null, problem } : { address: spec, problem: null };
};

const ASCII_DOT_ATOM = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;

/** Why a Message-ID is not `<left@right>` as RFC 5322 §3.6.4 writes it, or null. */
export const messageIdProblem = (value: string): string | null => {
  const id = withoutComments(value.slice(0, 1_000)).trim();
  if (!id.startsWith('<') || !id.endsWith('>')) return 'it is not in angle brackets';
  const inner = id.slice(1, -1);
  if (/[\s<>]/.test(inner)) return 'it holds a space or a second bracket';
  const at = inner.lastIndexOf('@');
  if (at <= 0 || at === inner.length - 1) return 'it has no @ between its two halves';
  const left = inner.slice(0, at);
  const right = inner.slice(at + 1);
  if (!ASCII_DOT_ATOM.test(left)) return `its left half "${clip(left, 60)}" holds characters a Message-ID cannot have`;
  if (!ASCII_DOT_ATOM.test(right) && !/^\[[^[\]\\]*\]$/.test(right))
    return `its right half "${clip(right, 60)}" holds characters a Message-ID cannot have`;
  return null;
};

export const domainOf = (address: string) => address.slice(address.lastIndexOf('@') + 1).toLowerCase();
/** The organisational domain (news.good.example → good.example), for comparing who is who. */
export const organisationOf = (host: string) => getDomain(host) ?? host;

/** The host of an http(s) link, lower-cased and without `www.`; null for any other link. */
export const hostOf = (link: string) => {
  try {
    const url = new URL(link);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return url.hostname.toLowerCase().replace(/^www\./, '');
  } catch {
    return null;
  }
};

/** The host an anchor's text names as an address ("paypal.com/login", "https://…"), or null for words. */
export const hostNamedBy = (text: string) => {
  for (const token of text.trim().split(/\s+/).slice(0, 12)) {
    const word = token.replace(/^[("'<[]+|[)"'>\].,;:!?]+$/g, '');
    if (!word.includes('.') || word.includes('@')) continue;
    const hasScheme = /^https?:\/\//i.test(word);
    let host: string;
    try {
      host = new URL(hasScheme ? word : `http://${word}`).hostname.toLowerCase();
    } catch {
      continue;
    }
    if (!host.includes('.')) continue;
    const parsed = parseHost(host);
    if (hasScheme || host.startsWith('www.') || parsed.isIp || parsed.isIcann) return host.replace(/^www\./, '');
  }
  return null;
};
