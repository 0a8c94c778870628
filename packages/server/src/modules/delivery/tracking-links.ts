import { createHash } from 'node:crypto';
import { OPEN_PIXEL_PATH } from '@sendwell/contracts/sending/figures';
import { QuoteType, Tokenizer, type TokenizerCallbacks } from 'htmlparser2';
import type { TPlatform } from '../../platform/context';
import type { Executor } from '../../platform/db';
import { publicUrl } from '../../platform/public-url';
import { hmac, safeEqual } from '../../platform/tokens';

/** Targets longer than this are neither stored nor tracked. */
const MAX_LINK_LENGTH = 2000;

/** A web link of the HTML: where its target is written (between the quotes), and what it decodes to. */
export type THref = { start: number; end: number; url: string };

/** The spaces HTML allows around `=` in an attribute. */
const isHtmlSpace = (code: number) => code === 32 || code === 9 || code === 10 || code === 12 || code === 13;

const NO_OP_CALLBACKS: TokenizerCallbacks = {
  onattribdata: () => {},
  onattribentity: () => {},
  onattribend: () => {},
  onattribname: () => {},
  oncdata: () => {},
  onclosetag: () => {},
  oncomment: () => {},
  ondeclaration: () => {},
  onend: () => {},
  onopentagend: () => {},
  onopentagname: () => {},
  onprocessinginstruction: () => {},
  onselfclosingtag: () => {},
  ontext: () => {},
  ontextentity: () => {},
};

/**
 * The `href` of each `<a>` whose target is a web address, in document order; other targets
 * (mailto:, #, javascript:) are left alone. An HTML tokenizer (htmlparser2) reads the body
 * once, in time linear in its length: the regular expression it replaces backtracked on
 * bodies such as `<a ` repeated (1.3 s at 120 KB, for every recipient; R24). The target is
 * decoded as a browser decodes it (`&amp;` and the other entities), and the first `href` of
 * a tag is the one that counts, as in a browser. Text inside script, style, title and
 * textarea and ordinary comments hold no links; Outlook's conditional comments
 * (`<!--[if mso]>…<![endif]-->`) are read as HTML, their links being the ones Outlook shows.
 */
export const webHrefsOf = (html: string): THref[] => {
  const hrefs: THref[] = [];
  const read = (text: string, offset: number, isTopLevel: boolean) => {
    let isAnchor = false;
    let hasHref = false;
    let isHref = false;
    let nameEnd = 0;
    let value = '';
    const tokenizer = new Tokenizer(
      { decodeEntities: true },
      {
        ...NO_OP_CALLBACKS,
        onopentagname: (start, end) => {
          isAnchor = end - start === 1 && (text.charCodeAt(start) | 0x20) === 0x61;
          hasHref = false;
        },
        onattribname: (start, end) => {
          isHref = isAnchor && !hasHref && end - start === 4 && text.slice(start, end).toLowerCase() === 'href';
          nameEnd = end;
          value = '';
        },
        onattribdata: (start, end) => {
          if (isHref) value += text.slice(start, end);
        },
        onattribentity: (codePoint) => {
          if (isHref) value += String.fromCodePoint(codePoint);
        },
        onattribend: (quote, end) => {
          if (!isHref) return;
          isHref = false;
          hasHref = true;
          if (quote === QuoteType.NoValue) return;
          // Only spaces, `=` and spaces, then the opening quote stand between the name and the value.
          let start = nameEnd;
          while (isHtmlSpace(text.charCodeAt(start))) start++;
          start++;
          while (isHtmlSpace(text.charCodeAt(start))) start++;
          const isQuoted = quote !== QuoteType.Unquoted;
          const url = value.trim();
          if (url.length <= MAX_LINK_LENGTH && /^https?:\/\/\S/i.test(url)) {
            hrefs.push({ start: offset + start + (isQuoted ? 1 : 0), end: offset + end - (isQuoted ? 1 : 0), url });
          }
        },
        onopentagend: () => {
          isAnchor = false;
        },
        onselfclosingtag: () => {
          isAnchor = false;
        },
        oncomment: (start, end, endOffset) => {
          // One level only: a comment's text cannot hold a complete comment of its own.
          if (isTopLevel && text.startsWith('[if', start))
            read(text.slice(start, end - endOffset), offset + start, false);
        },
      },
    );
    tokenizer.write(text);
    tokenizer.end();
  };
  read(html, 0, true);
  return hrefs;
};

/** The web links of a send's HTML, in order, once each. */
export const linksOf = (html: string) => uniqueLinks(webHrefsOf(html));

/** The targets of web links, in order, once each. */
export const uniqueLinks = (hrefs: THref[]) => [...new Set(hrefs.map((href) => href.url))];

/** Stores a send's links (`uniqueLinks`) once, at snapshot time; they are answered by target. */
export const storeLinks = async (executor: Executor, sendId: number, urls: string[]) => {
  if (urls.length > 0) {
    await executor
      .insertInto('send_links')
      .values(urls.map((url) => ({ send_id: sendId, url })))
      .onConflict((conflict) => conflict.columns(['send_id', 'url']).doNothing())
      .execute();
  }
};

export const linksOfSend = async (executor: Executor, sendId: number) =>
  new Map(
    (await executor.selectFrom('send_links').select(['id', 'url']).where('send_id', '=', sendId).execute()).map(
      (link) => [link.url, link.id],
    ),
  );

/**
 * A short signature binding a recipient's secret token to a link (or to the open pixel):
 * the tracking reference names the recipient, the signature which of its links.
 *
 * One HMAC a recipient derives their tracking key (`trackingKeyOf`), and each link's
 * signature is SHA-512/256 of that key and the link (B2: an HMAC per link and recipient was
 * most of a batch's HMACs). A secret 256-bit prefix under a hash that cannot be extended
 * (SHA-512/256 keeps half of its state hidden, unlike SHA-256) makes a pseudo-random
 * function, so a signature says nothing of another link's, nor of another recipient's (each
 * has a key of its own). Signatures of messages sent before (an HMAC each) are still taken.
 */
export const trackingKeyOf = (platform: TPlatform, token: string) =>
  hmac(platform.secrets.signingKey, `track-key:${token}`);

const signatureWith = (trackingKey: string, what: string) =>
  createHash('sha512-256').update(`${trackingKey}:${what}`).digest('base64url').slice(0, 16);

const signature = (platform: TPlatform, token: string, what: string) =>
  signatureWith(trackingKeyOf(platform, token), what);

/** The signature a message sent before tracking keys carried: an HMAC of the token and the link. */
const legacySignature = (platform: TPlatform, token: string, what: string) =>
  hmac(platform.secrets.signingKey, `track:${token}:${what}`).slice(0, 16);

/**
 * A tracked link's address: the recipient's tracking reference, the link, the signature by
 * the recipient's tracking key (`trackingKeyOf`, derived once a recipient by the composer).
 */
export const clickUrlWith = (platform: TPlatform, trackingRef: string, trackingKey: string, linkId: number) =>
  `${publicUrl(platform)}/api/t/c/${trackingRef}/${linkId}/${signatureWith(trackingKey, String(linkId))}`;

/** Where this server's click-tracking addresses start (`clickUrlWith`). */
const clickUrlPrefix = (platform: TPlatform) => `${publicUrl(platform)}/api/t/c/`;

/**
 * The tracking reference, link and signature of one of this server's click-tracking addresses
 * (`clickUrlWith`, at this server's PUBLIC_URL); null for any other address (another host, a
 * redirect of another service's, a path that is not a tracked link's). Nothing is checked here.
 */
export const clickUrlParts = (platform: TPlatform, url: string) => {
  const prefix = clickUrlPrefix(platform);
  if (!url.startsWith(prefix)) return null;
  const parts = /^([A-Za-z0-9_-]{1,64})\/([1-9][0-9]{0,14})\/([A-Za-z0-9_-]{1,64})$/.exec(url.slice(prefix.length));
  return parts ? { trackingRef: parts[1]!, linkId: Number(parts[2]), sig: parts[3]! } : null;
};

export const openUrlWith = (platform: TPlatform, trackingRef: string, trackingKey: string) =>
  `${publicUrl(platform)}${OPEN_PIXEL_PATH}${trackingRef}/${signatureWith(trackingKey, 'open')}.gif`;

export const clickUrl = (platform: TPlatform, trackingRef: string, token: string, linkId: number) =>
  clickUrlWith(platform, trackingRef, trackingKeyOf(platform, token), linkId);

export const openUrl = (platform: TPlatform, trackingRef: string, token: string) =>
  openUrlWith(platform, trackingRef, trackingKeyOf(platform, token));

/** How one message (or a batch template) names its tracking addresses. */
export type TTrackingUrls = { click: (linkId: number) => string; open: () => string };

/**
 * Points the message's links at the click tracker and adds the open pixel, as the send asks.
 * Only the targets change; every other character of the HTML stays as it was written.
 */
export const trackHtml = (
  html: string,
  urls: TTrackingUrls,
  links: Map<string, number>,
  { opens, clicks }: { opens: boolean; clicks: boolean },
  /** `webHrefsOf(html)`: found on a CPU thread by the engine, here by the tests. */
  hrefs: THref[],
) => {
  let tracked = html;
  if (clicks) {
    const parts: string[] = [];
    // One signature per link, however often the message repeats it.
    const clickUrls = new Map<number, string>();
    let copied = 0;
    for (const href of hrefs) {
      const linkId = links.get(href.url);
      if (linkId === undefined) continue;
      let clickUrl = clickUrls.get(linkId);
      if (clickUrl === undefined) {
        clickUrl = urls.click(linkId);
        clickUrls.set(linkId, clickUrl);
      }
      parts.push(html.slice(copied, href.start), clickUrl);
      copied = href.end;
    }
    if (copied > 0) tracked = parts.join('') + html.slice(copied);
  }
  if (opens) {
    const pixel = `<img src="${urls.open()}" width="1" height="1" alt="" style="display:block;border:0">`;
    tracked = /<\/body>/i.test(tracked) ? tracked.replace(/<\/body>/i, `${pixel}</body>`) : `${tracked}${pixel}`;
  }
  return tracked;
};

/** The signatures a recipient's tracking addresses carry, for providers that fill them in per recipient. */
export const trackingSignatures = (platform: TPlatform, token: string, links: Map<string, number>) => {
  const key = trackingKeyOf(platform, token);
  return {
    open: signatureWith(key, 'open'),
    clicks: Object.fromEntries([...links.values()].map((linkId) => [linkId, signatureWith(key, String(linkId))])),
  };
};

/**
 * Whether a tracking address's signature is the one Sendwell gave this recipient's link (or
 * open pixel); `token` is the recipient row's, found by the address's tracking reference.
 */
export const isTrackingSignature = (platform: TPlatform, token: string, what: 'open' | number, sig: string) =>
  safeEqual(sig, signature(platform, token, String(what))) ||
  safeEqual(sig, legacySignature(platform, token, String(what)));
