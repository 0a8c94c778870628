import net from 'node:net';
import type { TSpamCheck } from '@sendwell/contracts';
import { Tokenizer } from 'htmlparser2';
import type { ParsedMail } from 'mailparser';
import { getDomain, parse as parseHost } from 'tldts';

/**
 * Sendwell's own reading of a message's headers and content, the checks that need nothing
 * but the message: no DNS, no content engine, no mailbox. The spam test runs them on what
 * arrived, the pre-send check on what is about to be sent, and both get the same findings
 * with the same points. Each check says what it found, what it costs and what to do.
 *
 * Everything here reads text a user or a stranger wrote (R24): no pattern with nested
 * quantifiers over unbounded input, header values and link texts clipped before they are read.
 */

export type TMessageContext = {
  /** When the message is judged (its arrival, or now for a composed message): a Date is late or early against it. */
  now: Date;
  /** Sendwell's click-tracking hosts: a tracked link stands for the address it was written with. */
  trackingHosts: string[];
};

export const check = (
  category: TSpamCheck['category'],
  id: string,
  title: string,
  status: TSpamCheck['status'],
  penalty: number,
  detail: string,
  advice: string | null = null,
): TSpamCheck => ({ id, category, title, status, penalty, detail, advice });

/** GTUBE: the test string every spam filter treats as spam (SpamAssassin gives it 1,000 points). */
export const GTUBE = 'XJS*C4JDBQADN1.NSBN3*2IDNEN*GTUBE-STANDARD-ANTI-UBE-TEST-EMAIL*C.34X';

/** Link shorteners hide where a link goes; filters count them against a message. */
const SHORTENERS = new Set([
  'bit.ly',
  'bitly.com',
  'tinyurl.com',
  'goo.gl',
  't.co',
  'ow.ly',
  'is.gd',
  'buff.ly',
  'rebrand.ly',
  'cutt.ly',
  'shorturl.at',
  'tiny.cc',
  'rb.gy',
  't.ly',
  's.id',
  'bl.ink',
  'v.gd',
  'shorte.st',
  'adf.ly',
]);

/** Gmail clips a message whose HTML passes about 102 KB ("[Message clipped]"). */
const CLIP_BYTES = 102 * 1024;
/**
 * Past these a message is heavy for bulk mail: SpamAssassin's client skips messages over
 * 500 KB by default, and a newsletter over a megabyte is mostly images or attachments.
 */
const LARGE_BYTES = 512 * 1024;
const HUGE_BYTES = 1024 * 1024;
/**
 * What a fault costs that Gmail refuses mail for (RFC 5322: an invalid or missing From or
 * Message-ID, a header that may appear once appearing twice): 550 5.7.1, never delivered,
 * though no filter calls the message spam. Enough to leave a clean message "Needs work".
 */
const REFUSED_BY_GMAIL = 4;
/** A Date this far ahead of the arrival is not clock drift (rspamd and SpamAssassin both count it). */
const FUTURE_SLACK_MS = 15 * 60_000;
const PAST_SLACK_MS = 24 * 60 * 60_000;

/** HTML elements without an end tag. */
const VOID_TAGS = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'source',
  'track',
  'wbr',
  'param',
]);
/** Tags HTML closes by itself (p, li, td, …): leaving them open is not a mistake. */
const SELF_CLOSING = new Set([
  'p',
  'li',
  'td',
  'th',
  'tr',
  'tbody',
  'thead',
  'option',
  'html',
  'body',
  'head',
  'dt',
  'dd',
]);
/** Elements whose text no reader sees (the head is followed apart: it often has no end tag). */
const HIDDEN_TAGS = new Set(['style', 'script', 'title', 'template']);
/** Content mail clients never run and filters read as an attack. */
const ACTIVE_TAGS = new Set(['script', 'iframe', 'frame', 'object', 'embed', 'applet']);
const FORM_TAGS = new Set(['form', 'input', 'textarea', 'select']);

type TAnchor = { href: string; text: string };
type THtmlFacts = {
  links: string[];
  anchors: TAnchor[];
  /** The sources of the pictures a reader sees (a 1×1 open-tracking pixel is not one). */
  images: string[];
  text: string;
  unclosed: string[];
  stray: string[];
  /** What runs or embeds: `<script>`, `onclick=`, `javascript:` links, frames and objects. */
  active: string[];
  forms: string[];
};

/** How much of an anchor's text is kept to read an address from: an address is short. */
const ANCHOR_TEXT_CHARS = 300;

/** `javascript:` as browsers read it: control characters and spaces anywhere in the scheme are dropped. */
const isScriptUrl = (value: string) => {
  const scheme = [...value.slice(0, 64)].filter((character) => character.charCodeAt(0) > 32).join('');
  return /^(?:java|vb)script:/i.test(scheme);
};

/**
 * One pass over the HTML: its links, images, visible text, active content, forms, and tags
 * left open or closed without being opened. htmlparser2's tokenizer with a stack of our own:
 * its Parser keeps open tags at the front of an array and looks every closing tag up in it,
 * which took 209 s for 2 MB of `<div></span>` (R24). Here an open tag is pushed, a closing
 * tag for a name not open is known at once from a count, and one that is open pops
 * everything above it, so each tag is looked at a bounded number of times.
 */
export const readHtml = (html: string): THtmlFacts => {
  const facts: THtmlFacts = {
    links: [],
    anchors: [],
    images: [],
    text: '',
    unclosed: [],
    stray: [],
    active: [],
    forms: [],
  };
  const open: string[] = [];
  const openCounts = new Map<string, number>();
  const noteActive = (what: string) => {
    if (!facts.active.includes(what)) facts.active.push(what);
  };
  let hidden = 0;
  let isInHead = false;
  let anchor: TAnchor | null = null;
  const text: string[] = [];

  const leave = (name: string) => {
    openCounts.set(name, (openCounts.get(name) ?? 1) - 1);
    if (HIDDEN_TAGS.has(name)) hidden = Math.max(0, hidden - 1);
    if (name === 'a') anchor = null;
  };
  const openTag = (name: string, attributes: Record<string, string>, isSelfClosing: boolean) => {
    if (name === 'a' && attributes.href) {
      facts.links.push(attributes.href);
      anchor = { href: attributes.href, text: '' };
      facts.anchors.push(anchor);
    }
    if (name === 'img' && !(Number(attributes.width) <= 1 && Number(attributes.height) <= 1))
      facts.images.push(attributes.src ?? '');
    if (name === 'head') isInHead = true;
    if (name === 'body') isInHead = false;
    if (ACTIVE_TAGS.has(name)) noteActive(`<${name}>`);
    if (FORM_TAGS.has(name) && !facts.forms.includes(`<${name}>`)) facts.forms.push(`<${name}>`);
    for (const [attribute, value] of Object.entries(attributes)) {
      if (/^on[a-z]+$/.test(attribute)) noteActive(`${attribute}=`);
      else if ((attribute === 'href' || attribute === 'src' || attribute === 'action') && isScriptUrl(value))
        noteActive('javascript: links');
    }
    if (VOID_TAGS.has(name) || isSelfClosing) return;
    if (HIDDEN_TAGS.has(name)) hidden++;
    open.push(name);
    openCounts.set(name, (openCounts.get(name) ?? 0) + 1);
  };
  const closeTag = (name: string) => {
    if (name === 'head') isInHead = false;
    if (VOID_TAGS.has(name) || name === 'p' || name === 'br') {
      // `</p>` and `</br>` with nothing open are read as an empty paragraph and a break.
      if (!openCounts.get(name)) return;
    }
    if (!openCounts.get(name)) {
      facts.stray.push(name);
      return;
    }
    // Anything still open above it was left open (unless HTML closes it by itself).
    for (let left = open.pop(); left !== undefined; left = open.pop()) {
      leave(left);
      if (left === name) break;
      if (!SELF_CLOSING.has(left)) facts.unclosed.push(left);
    }
  };
  const addText = (value: string) => {
    if (hidden > 0 || isInHead) return;
    text.push(value);
    if (anchor && anchor.text.length < ANCHOR_TEXT_CHARS) anchor.text += value.slice(0, ANCHOR_TEXT_CHARS);
  };

  let tagName = '';
  let attributes: Record<string, string> = {};
  let attributeName = '';
  let attributeValue = '';
  const tokenizer = new Tokenizer(
    { decodeEntities: true, recognizeSelfClosing: true },
    {
      onopentagname: (start, end) => {
        tagName = html.slice(start, end).toLowerCase();
        attributes = {};
      },
      onattribname: (start, end) => {
        attributeName = html.slice(start, end).toLowerCase();
        attributeValue = '';
      },
      onattribdata: (start, end) => {
        attributeValue += html.slice(start, end);
      },
      onattribentity: (codepoint) => {
        attributeValue += String.fromCodePoint(codepoint);
      },
      onattribend: () => {
        if (!(attributeName in attributes)) attributes[attributeName] = attributeValue;
      },
      onopentagend: () => openTag(tagName, attributes, false),
      onselfclosingtag: () => openTag(tagName, attributes, true),
      onclosetag: (start, end) => closeTag(html.slice(start, end).toLowerCase()),
      ontext: (start, end) => addText(html.slice(start, end)),
      ontextentity: (codepoint) => addText(String.fromCodePoint(codepoint)),
      oncdata: () => {},
      oncomment: () => {},
      ondeclaration: () => {},
      onprocessinginstruction: () => {},
      onend: () => {},
    },
  );
  tokenizer.write(html);
  tokenizer.end();
  for (let left = open.pop(); left !== undefined; left = open.pop()) {
    if (!SELF_CLOSING.has(left)) facts.unclosed.push(left);
  }
  facts.text = text.join('').replace(/\s+/g, ' ').trim();
  return facts;
};

// ------------------------------------------------------------------ raw headers and MIME parts

/** The headers as they arrived (everything before the first blank line). */
export const headersOf = (raw: Buffer) => {
  const text = raw.toString('utf8');
  const end = text.search(/\r?\n\r?\n/);
  return end === -1 ? text : text.slice(0, end);
};

type THeaderField = { key: string; value: string };

/** Header fields in order, unfolded; names in lower case. */
const headerFields = (head: string): THeaderField[] => {
  const fields: THeaderField[] = [];
  for (const line of head.split(/\r?\n/)) {
    const last = fields[fields.length - 1];
    if ((line.startsWith(' ') || line.startsWith('\t')) && last) {
      last.value += line;
      continue;
    }
    const colon = line.indexOf(':');
    if (colon > 0) fields.push({ key: line.slice(0, colon).trim().toLowerCase(), value: line.slice(colon + 1) });
  }
  for (const field of fields) field.value = field.value.trim();
  return fields;
};

/** An entity's header block and body (latin1, byte for byte). */
const splitEntity = (entity: string) => {
  if (/^\r?\n/.test(entity)) return { head: '', body: entity.replace(/^\r?\n/, '') };
  const blank = /\r?\n\r?\n/.exec(entity);
  if (!blank) return { head: entity, body: '' };
  return { head: entity.slice(0, blank.index), body: entity.slice(blank.index + blank[0].length) };
};

const parameterOf = (value: string, name: string) => {
  const match = new RegExp(`;\\s*${name}\\s*=\\s*(?:"([^"]*)"|([^\\s;]+))`, 'i').exec(value.slice(0, 1_000));
  return match ? (match[1] ?? match[2] ?? null) : null;
};

type TMimeLeaf = { type: string; encoding: string; isAttachment: boolean; body: string };

const MAX_PARTS = 200;
const MAX_DEPTH = 8;

/** The bodies between a multipart body's `--boundary` lines (the preamble and epilogue left out). */
const splitMultipart = (body: string, boundary: string) => {
  const delimiter = `--${boundary}`;
  const parts: string[] = [];
  let start: number | null = null;
  let offset = 0;
  while (offset <= body.length && parts.length < MAX_PARTS) {
    const newline = body.indexOf('\n', offset);
    const lineEnd = newline === -1 ? body.length : newline;
    if (body.startsWith(delimiter, offset)) {
      const rest = body.slice(offset + delimiter.length, lineEnd).trim();
      if (rest === '' || rest === '--') {
        if (start !== null) parts.push(body.slice(start, Math.max(start, offset - 1)));
        if (rest === '--') break;
        start = lineEnd + 1;
      }
    }
    if (newline === -1) break;
    offset = newline + 1;
  }
  return parts;
};

/** The message's leaf parts as a receiver reads its MIME tree: type, transfer encoding, attachment or not. */
export const mimeLeaves = (raw: Buffer): TMimeLeaf[] => {
  const leaves: TMimeLeaf[] = [];
  const walk = (entity: string, depth: number) => {
    if (leaves.length >= MAX_PARTS) return;
    const { head, body } = splitEntity(entity);
    const fields = headerFields(head);
    const field = (name: string) => fields.find((item) => item.key === name)?.value ?? '';
    const contentType = field('content-type');
    const type = (contentType.split(';')[0] ?? '').trim().toLowerCase() || 'text/plain';
    const boundary = parameterOf(contentType, 'boundary');
    if (type.startsWith('multipart/') && boundary && depth < MAX_DEPTH) {
      for (const part of splitMultipart(body, boundary)) walk(part, depth + 1);
      return;
    }
    const disposition = field('content-disposition').toLowerCase();
    leaves.push({
      type,
      encoding: field('content-transfer-encoding').toLowerCase() || '7bit',
      isAttachment: disposition.startsWith('attachment') || /;\s*filename/i.test(disposition),
      body,
    });
  };
  walk(raw.toString('latin1'), 0);
  return leaves;
};

// ------------------------------------------------------------------ addresses, Message-ID, Date

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
const withoutComments = (value: string) => {
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
const messageIdProblem = (value: string): string | null => {
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

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const ZONES: Record<string, number> = {
  ut: 0,
  gmt: 0,
  z: 0,
  est: -5,
  edt: -4,
  cst: -6,
  cdt: -5,
  mst: -7,
  mdt: -6,
  pst: -8,
  pdt: -7,
};
const DATE_PATTERN =
  /^(?:[a-z]{3},\s*)?(\d{1,2})\s+([a-z]{3})\s+(\d{2,4})\s+(\d{1,2}):(\d{2})(?::(\d{2}))?\s+([+-]\d{4}|[a-z]{1,3})$/i;

/** A Date header as RFC 5322 writes it (day month year hh:mm[:ss] zone); null when it is not one. */
export const readDate = (value: string): Date | null => {
  const text = withoutComments(value.slice(0, 200)).trim();
  const match = DATE_PATTERN.exec(text);
  if (!match) return null;
  const [, day, monthName, yearText, hour, minute, second, zone] = match as unknown as string[];
  const month = MONTHS.indexOf(monthName!.toLowerCase());
  let year = Number(yearText);
  // RFC 5322 §4.3: two-digit years are 1950–2049, three-digit ones add 1900.
  if (yearText!.length === 2) year += year < 50 ? 2000 : 1900;
  else if (yearText!.length === 3) year += 1900;
  let offsetMinutes: number;
  if (/^[+-]\d{4}$/.test(zone!)) {
    const sign = zone!.startsWith('-') ? -1 : 1;
    offsetMinutes = sign * (Number(zone!.slice(1, 3)) * 60 + Number(zone!.slice(3, 5)));
  } else {
    const hours = ZONES[zone!.toLowerCase()];
    // Military zones other than Z are ambiguous (RFC 5322 §4.3): read as +0000, as it says.
    offsetMinutes = hours === undefined ? (zone!.length === 1 ? 0 : Number.NaN) : hours * 60;
  }
  const [d, h, m, s] = [Number(day), Number(hour), Number(minute), Number(second ?? 0)];
  if (month === -1 || Number.isNaN(offsetMinutes) || d < 1 || d > 31 || h > 23 || m > 59 || s > 60) return null;
  const time = Date.UTC(year, month, d, h, m, Math.min(s, 59)) - offsetMinutes * 60_000;
  const date = new Date(time);
  // 31 February and the like roll over into another month: not a date.
  return new Date(Date.UTC(year, month, d)).getUTCMonth() === month ? date : null;
};

const domainOf = (address: string) => address.slice(address.lastIndexOf('@') + 1).toLowerCase();
/** The organisational domain (news.good.example → good.example), for comparing who is who. */
const organisationOf = (host: string) => getDomain(host) ?? host;

const hostOf = (link: string) => {
  try {
    const url = new URL(link);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return url.hostname.toLowerCase().replace(/^www\./, '');
  } catch {
    return null;
  }
};

/** The host an anchor's text names as an address ("paypal.com/login", "https://…"), or null for words. */
const hostNamedBy = (text: string) => {
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

const SINGLETON_HEADERS = [
  'date',
  'from',
  'sender',
  'reply-to',
  'to',
  'cc',
  'bcc',
  'message-id',
  'in-reply-to',
  'references',
  'subject',
];
const HEADER_NAMES: Record<string, string> = {
  date: 'Date',
  from: 'From',
  sender: 'Sender',
  'reply-to': 'Reply-To',
  to: 'To',
  cc: 'Cc',
  bcc: 'Bcc',
  'message-id': 'Message-ID',
  'in-reply-to': 'In-Reply-To',
  references: 'References',
  subject: 'Subject',
};

const clip = (text: string, length = 120) => (text.length > length ? `${text.slice(0, length)}…` : text);

const describeAge = (milliseconds: number) => {
  const minutes = Math.round(Math.abs(milliseconds) / 60_000);
  if (minutes < 120) return `${minutes} minutes`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} hours`;
  return `${Math.round(hours / 24)} days`;
};

// ------------------------------------------------------------------ the checks

export const headerChecks = (mail: ParsedMail, raw: Buffer, context: TMessageContext): TSpamCheck[] => {
  const checks: TSpamCheck[] = [];
  const fields = headerFields(headersOf(raw));
  const valuesOf = (name: string) => fields.filter((field) => field.key === name).map((field) => field.value);

  const froms = valuesOf('from');
  const from = froms.length === 1 ? readMailbox(froms[0]!) : null;
  if (froms.length === 0) {
    checks.push(
      check(
        'headers',
        'from',
        'From',
        'fail',
        REFUSED_BY_GMAIL,
        'The message has no From header; Gmail refuses such mail.',
        'Send from exactly one address.',
      ),
    );
  } else if (!from || from.problem !== null) {
    checks.push(
      check(
        'headers',
        'from',
        'From',
        'fail',
        REFUSED_BY_GMAIL,
        froms.length > 1
          ? `The message has ${froms.length} From headers.`
          : `From: ${clip(froms[0]!)} is not a valid address: ${from!.problem}. Receivers read it differently (one shows it as ${JSON.stringify(clip(mail.from?.text ?? '', 80))}), and Gmail refuses mail whose From breaks RFC 5322.`,
        'Write the sender as Name <local@domain>, the address without spaces, the name in quotes if it holds punctuation.',
      ),
    );
  } else {
    checks.push(check('headers', 'from', 'From', 'pass', 0, `From: ${mail.from?.text || froms[0]}`));
  }

  const duplicated = SINGLETON_HEADERS.filter((name) => valuesOf(name).length > 1);
  if (duplicated.length > 0) {
    checks.push(
      check(
        'headers',
        'duplicate-headers',
        'Duplicate headers',
        'fail',
        REFUSED_BY_GMAIL,
        `${duplicated.map((name) => `${HEADER_NAMES[name]} (${valuesOf(name).length} times)`).join(', ')}: a message has each of these at most once. Receivers pick different ones, and Gmail refuses such mail.`,
        'Set each of these headers once; look for a template or a library that adds its own.',
      ),
    );
  }

  const messageIds = valuesOf('message-id');
  const messageIdProblemText = messageIds.length > 0 ? messageIdProblem(messageIds[0]!) : null;
  if (messageIds.length === 0) {
    checks.push(
      check(
        'headers',
        'message-id',
        'Message-ID',
        'fail',
        REFUSED_BY_GMAIL,
        'The message has no Message-ID header: Gmail refuses such mail, and filters read it as hand-made.',
        'Your sending service should add one (<something-unique@your-domain>).',
      ),
    );
  } else if (messageIdProblemText) {
    checks.push(
      check(
        'headers',
        'message-id',
        'Message-ID',
        'fail',
        REFUSED_BY_GMAIL,
        `Message-ID: ${clip(messageIds[0]!)} is not valid: ${messageIdProblemText}. Gmail refuses mail without a valid Message-ID.`,
        'A Message-ID is <something-unique@your-domain>; your sending service should write it.',
      ),
    );
  } else {
    checks.push(check('headers', 'message-id', 'Message-ID', 'pass', 0, `Message-ID: ${clip(messageIds[0]!)}`));
  }

  const dates = valuesOf('date');
  const date = dates.length > 0 ? readDate(dates[0]!) : null;
  const ahead = date ? date.getTime() - context.now.getTime() : 0;
  if (dates.length === 0) {
    checks.push(
      check(
        'headers',
        'date',
        'Date',
        'fail',
        1.5,
        'The message has no Date header, which every message must have.',
        'Your sending service should add one.',
      ),
    );
  } else if (!date) {
    checks.push(
      check(
        'headers',
        'date',
        'Date',
        'fail',
        1.5,
        `Date: ${clip(dates[0]!)} is not a date as mail writes it (e.g. "Tue, 4 Nov 2025 09:30:00 +0000").`,
        'Let your sending service write the Date header.',
      ),
    );
  } else if (ahead > FUTURE_SLACK_MS) {
    checks.push(
      check(
        'headers',
        'date',
        'Date',
        'fail',
        2,
        `Date: ${clip(dates[0]!)} is ${describeAge(ahead)} ahead of the time the message was checked: spam dates itself ahead to stay at the top of the inbox.`,
        "Check the sending server's clock and time zone.",
      ),
    );
  } else if (-ahead > PAST_SLACK_MS) {
    checks.push(
      check(
        'headers',
        'date',
        'Date',
        'warn',
        0.5,
        `Date: ${clip(dates[0]!)} is ${describeAge(ahead)} before the time the message was checked.`,
        "Check the sending server's clock, or send the message again rather than a stored copy.",
      ),
    );
  } else {
    checks.push(check('headers', 'date', 'Date', 'pass', 0, `Date: ${date.toUTCString()}`));
  }

  const subject = mail.subject ?? '';
  const letters = subject.replace(/[^\p{L}]/gu, '');
  if (!subject.trim()) {
    checks.push(
      check(
        'headers',
        'subject',
        'Subject',
        'fail',
        0.5,
        'The message has no subject.',
        'Write a subject that says what the email is about.',
      ),
    );
  } else if (letters.length >= 6 && letters === letters.toUpperCase() && letters !== letters.toLowerCase()) {
    checks.push(
      check(
        'headers',
        'subject',
        'Subject',
        'warn',
        0.3,
        `The subject is in capitals: "${clip(subject)}".`,
        'Write the subject in sentence case.',
      ),
    );
  } else {
    checks.push(check('headers', 'subject', 'Subject', 'pass', 0, `Subject: ${clip(subject, 200)}`));
  }

  const fromAddress = from?.address ?? null;
  const replyTos = (mail.replyTo?.value ?? []).map((item) => item.address).filter((item): item is string => !!item);
  const elsewhere = fromAddress
    ? replyTos.filter((address) => organisationOf(domainOf(address)) !== organisationOf(domainOf(fromAddress)))
    : [];
  if (elsewhere.length > 0) {
    checks.push(
      check(
        'headers',
        'reply-to',
        'Reply-To',
        'warn',
        0.5,
        `Replies go to ${elsewhere.join(', ')}, at another domain than the From address (${domainOf(fromAddress!)}): filters read it as a phishing sign.`,
        `Take replies at an address of ${organisationOf(domainOf(fromAddress!))}, or send from the domain that takes them.`,
      ),
    );
  }

  const has = (name: string) => valuesOf(name).length > 0;
  if (has('list-unsubscribe')) {
    const oneClick = has('list-unsubscribe-post');
    checks.push(
      check(
        'headers',
        'list-unsubscribe',
        'List-Unsubscribe',
        oneClick ? 'pass' : 'warn',
        oneClick ? 0 : 0.2,
        oneClick
          ? 'One-click unsubscribe (RFC 8058) is offered.'
          : 'A List-Unsubscribe header without List-Unsubscribe-Post.',
        oneClick
          ? null
          : 'Offer one-click unsubscribe: add List-Unsubscribe-Post: List-Unsubscribe=One-Click with an https link.',
      ),
    );
  } else {
    checks.push(
      check(
        'headers',
        'list-unsubscribe',
        'List-Unsubscribe',
        'warn',
        0.5,
        'No List-Unsubscribe header: mail clients cannot show their unsubscribe button.',
        'Send marketing mail through Sendwell to a list: it adds List-Unsubscribe and one-click unsubscribe. Gmail and Yahoo require them of bulk senders.',
      ),
    );
  }
  return checks;
};

/** Whether a base64 body is plain ASCII text once decoded (nothing base64 was needed for). */
const isAsciiOnce = (body: string) => {
  const bytes = Buffer.from(body.slice(0, 400_000).replace(/[^A-Za-z0-9+/=]/g, ''), 'base64');
  if (bytes.length === 0) return false;
  let ascii = 0;
  for (const byte of bytes) if (byte === 9 || byte === 10 || byte === 13 || (byte >= 32 && byte < 127)) ascii++;
  return ascii / bytes.length >= 0.98;
};

const kilobytes = (bytes: number) => `${Math.max(1, Math.round(bytes / 1024)).toLocaleString('en-US')} KB`;

export const contentChecks = (mail: ParsedMail, raw: Buffer, context: TMessageContext): TSpamCheck[] => {
  const checks: TSpamCheck[] = [];
  const html = typeof mail.html === 'string' ? mail.html : '';
  // mailparser makes a text from the HTML when there is none: whether the sender wrote one
  // is read from the MIME parts.
  const leaves = mimeLeaves(raw);
  const bodies = leaves.filter(
    (leaf) => !leaf.isAttachment && (leaf.type === 'text/plain' || leaf.type === 'text/html'),
  );
  const hasTextPart = bodies.some((leaf) => leaf.type === 'text/plain');
  const text = hasTextPart ? (mail.text ?? '') : '';
  const facts = html
    ? readHtml(html)
    : { links: [], anchors: [], images: [], text: text.trim(), unclosed: [], stray: [], active: [], forms: [] };

  const rawText = raw.toString('latin1');
  if (rawText.includes(GTUBE) || text.includes(GTUBE) || html.includes(GTUBE)) {
    checks.push(
      check(
        'content',
        'gtube',
        'GTUBE',
        'fail',
        10,
        'The message carries GTUBE, the test string every spam filter treats as spam.',
        'Remove the GTUBE line: it exists only to make filters reject a message.',
      ),
    );
  }

  if (!html && !text.trim()) {
    checks.push(
      check('content', 'parts', 'Message parts', 'fail', 2, 'The message has no text at all.', 'Write a message.'),
    );
  } else if (html && !text.trim()) {
    checks.push(
      check(
        'content',
        'parts',
        'Message parts',
        'warn',
        0.3,
        'HTML only: no plain-text version.',
        'Add a plain-text part (multipart/alternative) for clients and filters that read text.',
      ),
    );
  } else {
    checks.push(
      check(
        'content',
        'parts',
        'Message parts',
        'pass',
        0,
        html ? 'An HTML part and a plain-text part.' : 'Plain text.',
      ),
    );
  }

  const base64Text = bodies.filter((leaf) => leaf.encoding === 'base64' && isAsciiOnce(leaf.body));
  if (base64Text.length > 0) {
    checks.push(
      check(
        'content',
        'encoding',
        'Transfer encoding',
        'warn',
        0.5,
        `${[...new Set(base64Text.map((leaf) => leaf.type))].join(' and ')} sent in base64 although it is plain ASCII text: filters read base64 text as words hidden from them.`,
        'Send text parts as quoted-printable or 7bit (what mail libraries choose for ASCII text).',
      ),
    );
  }

  const tracking = new Set(context.trackingHosts.map((host) => host.toLowerCase().replace(/^www\./, '')));
  // Sendwell's open-tracking image is not a picture the reader sees.
  const images = facts.images.filter((source) => !tracking.has(hostOf(source) ?? '')).length;
  const characters = facts.text.length;
  if (images > 0 && characters < (400 * Math.min(images, 3)) / 3) {
    checks.push(
      check(
        'content',
        'image-ratio',
        'Images and text',
        characters < 100 ? 'fail' : 'warn',
        characters < 100 ? 1.5 : 0.5,
        `${images} image${images === 1 ? '' : 's'} and ${characters} characters of text.`,
        'Filters distrust messages that are mostly images: say in text what the images say (at least a few sentences).',
      ),
    );
  } else {
    checks.push(
      check(
        'content',
        'image-ratio',
        'Images and text',
        'pass',
        0,
        `${images} image${images === 1 ? '' : 's'} and ${characters} characters of text.`,
      ),
    );
  }

  const hosts = facts.links.map(hostOf).filter((host): host is string => host !== null);
  const shortened = [...new Set(hosts.filter((host) => SHORTENERS.has(host)))];
  // Sendwell's own tracked links are not the user's to change (a local run's PUBLIC_URL is an address).
  const numeric = [
    ...new Set(hosts.filter((host) => !tracking.has(host) && net.isIP(host.replace(/^\[|\]$/g, '')) !== 0)),
  ];
  if (shortened.length > 0) {
    checks.push(
      check(
        'content',
        'shorteners',
        'Link shorteners',
        'fail',
        1.5,
        `Links through ${shortened.join(', ')}.`,
        'Link to the real address: shorteners hide where a link goes, and spam uses them.',
      ),
    );
  } else {
    checks.push(
      check(
        'content',
        'shorteners',
        'Link shorteners',
        'pass',
        0,
        `${facts.links.length} link${facts.links.length === 1 ? '' : 's'}, none through a shortener.`,
      ),
    );
  }
  if (numeric.length > 0) {
    checks.push(
      check(
        'content',
        'ip-links',
        'Links to bare addresses',
        'fail',
        1.2,
        `Links to ${numeric.join(', ')}.`,
        'Link to a domain name, not to a server address.',
      ),
    );
  }

  const misleading = facts.anchors.flatMap((anchor) => {
    const target = hostOf(anchor.href);
    const named = hostNamedBy(anchor.text);
    if (!target || !named || tracking.has(target)) return [];
    return organisationOf(named) === organisationOf(target) ? [] : [{ named, target }];
  });
  if (misleading.length > 0) {
    const first = misleading[0]!;
    checks.push(
      check(
        'content',
        'link-text',
        'Link text',
        'fail',
        2,
        `A link's text names ${first.named} but the link goes to ${first.target}${misleading.length > 1 ? ` (and ${misleading.length - 1} more like it)` : ''}: the pattern of phishing.`,
        'Let a link that shows an address go to that address, or give it words instead of an address.',
      ),
    );
  }

  const unsubscribeLink =
    facts.links.some((link) => /unsub|opt-?out|preferences/i.test(link)) ||
    /unsubscribe|opt[- ]out/i.test(facts.text || text);
  checks.push(
    unsubscribeLink
      ? check(
          'content',
          'unsubscribe-link',
          'Unsubscribe link',
          'pass',
          0,
          'The message tells readers how to unsubscribe.',
        )
      : check(
          'content',
          'unsubscribe-link',
          'Unsubscribe link',
          'warn',
          0.3,
          'No unsubscribe link in the message.',
          'Add an unsubscribe link (Sendwell fills {{unsubscribe_url}} for list sends).',
        ),
  );

  const broken = [...new Set([...facts.unclosed, ...facts.stray])];
  if (html && broken.length > 0) {
    checks.push(
      check(
        'content',
        'html',
        'HTML',
        'warn',
        0.3,
        `Broken HTML: ${broken
          .slice(0, 5)
          .map((tag) => `<${tag}>`)
          .join(', ')} ${facts.unclosed.length ? 'left open' : 'closed without being opened'}.`,
        'Close every tag you open; mail clients repair broken HTML differently.',
      ),
    );
  } else if (html) {
    checks.push(check('content', 'html', 'HTML', 'pass', 0, 'The HTML is well formed.'));
  }

  if (facts.active.length > 0) {
    checks.push(
      check(
        'content',
        'scripts',
        'Scripts',
        'fail',
        2,
        `The HTML holds ${facts.active.slice(0, 5).join(', ')}: no mail client runs scripts or embedded frames, and filters read them as an attack.`,
        'Remove scripts, event attributes (onclick=…), javascript: links, frames and objects; link to a web page for anything interactive.',
      ),
    );
  }
  if (facts.forms.length > 0) {
    checks.push(
      check(
        'content',
        'forms',
        'Forms',
        'fail',
        1.5,
        `The HTML holds a form (${facts.forms.join(', ')}): most clients disable forms in mail, and filters read a form in an email as phishing for data.`,
        'Link to a form on your website instead.',
      ),
    );
  }

  const htmlBytes = Buffer.byteLength(html);
  const size =
    raw.length > HUGE_BYTES
      ? check(
          'content',
          'size',
          'Size',
          'fail',
          1.5,
          `The message is ${kilobytes(raw.length)}: past a megabyte, bulk mail is slow to deliver, filters give up reading it, and readers on phones wait.`,
          'Send images as links to your site, not inside the message, and attachments as links; keep a newsletter under 100 KB.',
        )
      : raw.length > LARGE_BYTES
        ? check(
            'content',
            'size',
            'Size',
            'warn',
            0.8,
            `The message is ${kilobytes(raw.length)}: heavy for bulk mail (SpamAssassin's client skips messages past 500 KB).`,
            'Link to images and attachments rather than carrying them; keep a newsletter under 100 KB.',
          )
        : check('content', 'size', 'Size', 'pass', 0, `The message is ${kilobytes(raw.length)}.`);
  checks.push(size);
  if (htmlBytes > CLIP_BYTES) {
    checks.push(
      check(
        'content',
        'clip',
        'Gmail clipping',
        'warn',
        0.5,
        `The HTML is ${kilobytes(htmlBytes)}; Gmail clips messages past 102 KB and hides the rest (your unsubscribe link included).`,
        'Trim the HTML (inline styles, comments, unused markup).',
      ),
    );
  }
  return checks;
};
