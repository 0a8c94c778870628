import type { TSpamCheck } from '@sendwell/contracts';
import type { ParsedMail } from 'mailparser';
import { leavesOf, parseMime, unfoldedValue } from '../../platform/mime';
import { hostOf } from './addresses';
import { check, type TMessageContext } from './check';
import { htmlChecks, linkChecks, readHtml, textFacts, throughTracking, trackedLinksOf } from './html-checks';

/**
 * The content checks: GTUBE, the parts a sender wrote (read from the MIME tree: mailparser
 * makes a text part up from the HTML), text in base64, images against text, the links and
 * the HTML (`html-checks.ts`), an unsubscribe link, the message's size and Gmail's clip.
 */

/** GTUBE: the test string every spam filter treats as spam (SpamAssassin gives it 1,000 points). */
export const GTUBE = 'XJS*C4JDBQADN1.NSBN3*2IDNEN*GTUBE-STANDARD-ANTI-UBE-TEST-EMAIL*C.34X';

/** Gmail clips a message whose HTML passes about 102 KB ("[Message clipped]"). */
const CLIP_BYTES = 102 * 1024;
/**
 * Past these a message is heavy for bulk mail: SpamAssassin's client skips messages over
 * 500 KB by default, and a newsletter over a megabyte is mostly images or attachments.
 */
const LARGE_BYTES = 512 * 1024;
const HUGE_BYTES = 1024 * 1024;

type TMimeLeaf = { type: string; encoding: string; isAttachment: boolean; body: string };

/** The message's leaf parts as a receiver reads its MIME tree: type, transfer encoding, attachment or not. */
export const mimeLeaves = (raw: Buffer): TMimeLeaf[] =>
  leavesOf(parseMime(raw)).map((part) => {
    const field = (name: string) => {
      const found = part.fields.find((each) => each.name === name);
      return found ? unfoldedValue(found) : '';
    };
    const disposition = field('content-disposition').toLowerCase();
    return {
      type: part.type,
      encoding: field('content-transfer-encoding').toLowerCase() || '7bit',
      isAttachment: disposition.startsWith('attachment') || /;\s*filename/i.test(disposition),
      body: part.rawBody,
    };
  });

/** Whether a base64 body is plain ASCII text once decoded (nothing base64 was needed for). */
const isAsciiOnce = (body: string) => {
  const bytes = Buffer.from(body.slice(0, 400_000).replace(/[^A-Za-z0-9+/=]/g, ''), 'base64');
  if (bytes.length === 0) return false;
  let ascii = 0;
  for (const byte of bytes) if (byte === 9 || byte === 10 || byte === 13 || (byte >= 32 && byte < 127)) ascii++;
  return ascii / bytes.length >= 0.98;
};

const kilobytes = (bytes: number) => `${Math.max(1, Math.round(bytes / 1024)).toLocaleString('en-US')} KB`;

/**
 * The content findings, and the links on Sendwell's tracking hosts (`trackedLinks`) for the
 * spam test to look up: read again with their targets (`context.linkTargets`), the link
 * findings judge where each tracked link leads.
 */
export const contentChecks = (
  mail: ParsedMail,
  raw: Buffer,
  context: TMessageContext,
): { checks: TSpamCheck[]; trackedLinks: string[] } => {
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
  const written = html ? readHtml(html) : textFacts(text);
  const tracking = new Set(context.trackingHosts.map((host) => host.toLowerCase().replace(/^www\./, '')));
  // Sendwell's own tracked links read as where they lead, when the spam test found their targets.
  const facts = throughTracking(written, context.linkTargets);

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

  checks.push(...linkChecks(facts, tracking));

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

  checks.push(...htmlChecks(facts, html));

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
  return { checks, trackedLinks: context.linkTargets ? [] : trackedLinksOf(written, tracking) };
};
