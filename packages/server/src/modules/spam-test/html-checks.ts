import net from 'node:net';
import type { TSpamCheck } from '@sendwell/contracts';
import { Tokenizer } from 'htmlparser2';
import { hostNamedBy, hostOf, organisationOf } from './addresses';
import { check } from './check';

/**
 * The HTML part read in one pass (its links, images, visible text, active content, forms
 * and broken tags), and the findings that read it: links (shorteners, bare addresses, text
 * naming another host than the link's), broken HTML, scripts and forms.
 */

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
export type THtmlFacts = {
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

/** The facts of a message without HTML: its text alone. */
export const textFacts = (text: string): THtmlFacts => ({
  links: [],
  anchors: [],
  images: [],
  text: text.trim(),
  unclosed: [],
  stray: [],
  active: [],
  forms: [],
});

/** How many of Sendwell's own tracked links a message's check names for the spam test to look up. */
const MAX_TRACKED_LINKS = 100;

/**
 * The links on Sendwell's tracking hosts, once each (at most 100): the ones the spam test
 * looks up to read as their targets (`linkTargets`); which of them are tracked links is
 * decided there, by their stored rows.
 */
export const trackedLinksOf = (facts: THtmlFacts, tracking: Set<string>) =>
  [...new Set(facts.links.filter((link) => tracking.has(hostOf(link) ?? '')))].slice(0, MAX_TRACKED_LINKS);

/**
 * The facts with each of Sendwell's tracked links read as the address it leads to, as the
 * reader reaches it: the link checks judge where a link goes, not the tracking redirect
 * before it. `tracked` counts the links so read.
 */
export const throughTracking = (
  facts: THtmlFacts,
  targets: Record<string, string> | undefined,
): THtmlFacts & { tracked: number } => {
  if (!targets) return { ...facts, tracked: 0 };
  const targetOf = (href: string) => (Object.hasOwn(targets, href) ? targets[href]! : href);
  return {
    ...facts,
    links: facts.links.map(targetOf),
    anchors: facts.anchors.map((anchor) => ({ ...anchor, href: targetOf(anchor.href) })),
    tracked: facts.links.filter((link) => Object.hasOwn(targets, link)).length,
  };
};

/** Where the links go: shorteners, bare addresses, a text that names another host than its link's. */
export const linkChecks = (facts: THtmlFacts & { tracked?: number }, tracking: Set<string>): TSpamCheck[] => {
  const checks: TSpamCheck[] = [];
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
        `${facts.links.length} link${facts.links.length === 1 ? '' : 's'}, none through a shortener${facts.tracked ? ` (${facts.tracked} through Sendwell's click tracking, read as where ${facts.tracked === 1 ? 'it leads' : 'they lead'})` : ''}.`,
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
  return checks;
};

/** Broken HTML, and what a mail client never runs (scripts, frames) or filters read as phishing (forms). */
export const htmlChecks = (facts: THtmlFacts, html: string): TSpamCheck[] => {
  const checks: TSpamCheck[] = [];
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
  return checks;
};
