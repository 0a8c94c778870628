import crypto from 'node:crypto';
import type { TSpamCheck, TSpamScoreBand } from '@sendwell/contracts';
import { dkimSign } from 'mailauth';
import MailComposer from 'nodemailer/lib/mail-composer';
import type { TZone } from './dns-zone';

/**
 * Messages of known character for the spam test's score, made here: clean newsletters,
 * each authentication fault, each header and content fault the analysis names, classic
 * spam and GTUBE. Each says the band a receiver's view puts it in (with rspamd and
 * SpamAssassin judging, and on authentication and Sendwell's own checks alone) and the
 * finding that must name its fault; `CORPUS_PAIRS` says which must score above which.
 * Keys are made per run and published in `corpusZone`, the DNS the analysis asks.
 */

type TKeyPair = { publicKey: Buffer; privateKey: string };

const keyPair = (): TKeyPair =>
  crypto.generateKeyPairSync('rsa', {
    modulusLength: 1024,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });

export type TCorpusKeys = { signing: TKeyPair; unrelated: TKeyPair };

export const corpusKeys = (): TCorpusKeys => ({ signing: keyPair(), unrelated: keyPair() });

const dkimRecord = (key: Buffer) => `v=DKIM1; k=rsa; p=${key.toString('base64')}`;

/** The sending server is 127.0.0.1 (the test delivers over loopback); 192.0.2.10 is someone else. */
export const corpusZone = ({ signing, unrelated }: TCorpusKeys): TZone => {
  const key = { txt: [dkimRecord(signing.publicKey)] };
  const reject = { txt: ['v=DMARC1; p=reject; rua=mailto:dmarc@good.test'] };
  return {
    // Everything right: this server may send, the key signs, the policy is strict.
    'good.test': { txt: ['v=spf1 ip4:127.0.0.1 -all'], a: ['127.0.0.1'] },
    's1._domainkey.good.test': key,
    '_dmarc.good.test': reject,
    // One SPF fault each; DKIM still passes aligned, so DMARC passes.
    'softfail.test': { txt: ['v=spf1 ip4:192.0.2.10 ~all'] },
    's1._domainkey.softfail.test': key,
    '_dmarc.softfail.test': reject,
    'spffail.test': { txt: ['v=spf1 ip4:192.0.2.10 -all'] },
    's1._domainkey.spffail.test': key,
    '_dmarc.spffail.test': reject,
    'nospf.test': { a: ['127.0.0.1'] },
    's1._domainkey.nospf.test': key,
    '_dmarc.nospf.test': reject,
    'permerror.test': { txt: ['v=spf1 ip4:127.0.0.1 -all', 'v=spf1 ip4:192.0.2.10 -all'] },
    's1._domainkey.permerror.test': key,
    '_dmarc.permerror.test': reject,
    // No DMARC record at all.
    'nodmarc.test': { txt: ['v=spf1 ip4:127.0.0.1 -all'] },
    's1._domainkey.nodmarc.test': key,
    // A sending service: its own SPF and key, which align with its domain only.
    'esp.test': { txt: ['v=spf1 ip4:127.0.0.1 -all'] },
    's1._domainkey.esp.test': key,
    '_dmarc.esp.test': { txt: ['v=DMARC1; p=none'] },
    // Domains whose mail comes through the service unaligned, under each DMARC policy.
    'dmarcnone.test': { txt: ['v=spf1 ip4:192.0.2.10 -all'] },
    '_dmarc.dmarcnone.test': { txt: ['v=DMARC1; p=none'] },
    'quarantine.test': { txt: ['v=spf1 ip4:192.0.2.10 -all'] },
    '_dmarc.quarantine.test': { txt: ['v=DMARC1; p=quarantine'] },
    // A domain someone else sends as: its SPF names another server, its key is not ours.
    'forged.test': { txt: ['v=spf1 ip4:192.0.2.10 -all'], a: ['192.0.2.10'] },
    's1._domainkey.forged.test': { txt: [dkimRecord(unrelated.publicKey)] },
    '_dmarc.forged.test': reject,
  };
};

/**
 * The DKIM-Signature header lines a sending server would put on `raw` (selector s1), with
 * its time read once. mailauth 4.13.3's dkimSign, given no signTime, writes t= from the
 * clock twice: once in the header it signs and again in the header it returns
 * (`formatSignatureHeaderLine`, `Math.round(Date.now() / 1000)` each time). When the thread
 * is put aside between the two (the RSA signature in between, on a loaded machine) across a
 * half second, the two differ and the signature is "bad" though nothing changed the message.
 */
export const signDkim = async (raw: Buffer, signer: { domain: string; privateKey: string }) =>
  (
    await dkimSign(raw, {
      signTime: new Date(),
      signatureData: [{ signingDomain: signer.domain, selector: 's1', privateKey: signer.privateKey }],
    })
  ).signatures;

type TSpec = {
  from?: string;
  subject?: string;
  html?: string | null;
  text?: string | null;
  headers?: Record<string, string>;
  /** List-Unsubscribe with one-click, as Sendwell sends list mail (on unless false). */
  listUnsubscribe?: boolean;
  textEncoding?: 'base64' | 'quoted-printable';
  attachments?: { filename: string; content: Buffer; contentType: string }[];
  date?: Date;
  /** Changes to the composed message before it is signed. */
  edit?: (raw: string) => string;
  /** The DKIM signer (the From domain's, with the right key, unless told). `null`: unsigned. */
  sign?: { domain: string; key?: 'signing' | 'unrelated' } | null;
  /** Changes after signing (a body a relay altered). */
  afterSigning?: (raw: string) => string;
};

const ARTICLE = `<h1>November at the bakery</h1>
<p>This month we baked three new breads, and the recipes are below. The rye takes two days, the spelt one, and the focaccia an afternoon.</p>
<p>Read them all on <a href="https://good.test/recipes/november">our recipes page</a>. Thank you for reading, and see you in December.</p>`;
const ARTICLE_TEXT =
  'November at the bakery\n\nThis month we baked three new breads, and the recipes are below. The rye takes two days, the spelt one, and the focaccia an afternoon.\n\nRead them: https://good.test/recipes/november';
const FOOTER = '<p><a href="https://good.test/unsubscribe?u=1">Unsubscribe</a> from these emails.</p>';
const FOOTER_TEXT = '\n\nUnsubscribe: https://good.test/unsubscribe?u=1';

const newsletter = (body = ARTICLE, footer = FOOTER) => `<html><body>${body}\n${footer}</body></html>`;

const domainOf = (address: string) => address.replace(/^.*@|>.*$/g, '');

const compose = async (to: string, keys: TCorpusKeys, spec: TSpec): Promise<Buffer> => {
  const from = spec.from ?? 'Good News <news@good.test>';
  const fromDomain = domainOf(from);
  const html = spec.html === undefined ? newsletter() : spec.html;
  const text = spec.text === undefined ? `${ARTICLE_TEXT}${FOOTER_TEXT}` : spec.text;
  const headers: Record<string, string> = {
    ...(spec.listUnsubscribe === false
      ? {}
      : {
          'List-Unsubscribe': `<https://${fromDomain}/unsubscribe?u=1>`,
          'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
        }),
    ...spec.headers,
  };
  let raw = (
    await new MailComposer({
      from,
      to,
      subject: spec.subject ?? 'Our November news: three new recipes',
      ...(html !== null ? { html } : {}),
      ...(text !== null ? { text } : {}),
      headers,
      messageId: `<${crypto.randomUUID()}@${fromDomain}>`,
      date: spec.date ?? new Date(),
      ...(spec.textEncoding ? { textEncoding: spec.textEncoding } : {}),
      ...(spec.attachments ? { attachments: spec.attachments } : {}),
    })
      .compile()
      .build()
  ).toString('latin1');
  // Line ends as SMTP carries them: a bare LF inside a part is turned into CRLF on the way,
  // which would change the message after it was signed.
  raw = raw.replace(/\r?\n/g, '\r\n');
  if (spec.edit) raw = spec.edit(raw);
  const signer = spec.sign === undefined ? { domain: fromDomain } : spec.sign;
  if (signer) {
    const signatures = await signDkim(Buffer.from(raw, 'latin1'), {
      domain: signer.domain,
      privateKey: keys[signer.key ?? 'signing'].privateKey,
    });
    raw = `${signatures}${raw}`;
  }
  if (spec.afterSigning) raw = spec.afterSigning(raw);
  return Buffer.from(raw, 'latin1');
};

/** Adds a header line after the first line starting with `after:`. */
const addHeaderAfter = (raw: string, after: string, line: string) =>
  raw.replace(new RegExp(`^(${after}:[^\\r\\n]*\\r\\n)`, 'im'), `$1${line}\r\n`);
/** Replaces a header's value (the first of its name). */
const setHeader = (raw: string, name: string, value: string) =>
  raw.replace(new RegExp(`^${name}:[^\\r\\n]*(?:\\r\\n[ \\t][^\\r\\n]*)*`, 'im'), `${name}: ${value}`);

export const GTUBE_LINE = 'XJS*C4JDBQADN1.NSBN3*2IDNEN*GTUBE-STANDARD-ANTI-UBE-TEST-EMAIL*C.34X';

export type TCorpusMessage = {
  id: string;
  /** What the message is. */
  what: string;
  /** Its band with rspamd and SpamAssassin judging. */
  band: TSpamScoreBand;
  /** Its band on authentication and Sendwell's own checks alone (engines off). */
  bandWithoutEngines: TSpamScoreBand;
  /** The finding that must name its fault. */
  finding?: { id: string; status: TSpamCheck['status'] };
  /** The envelope sender's domain: SPF is checked for it. */
  envelopeDomain: string;
  build: (to: string, keys: TCorpusKeys) => Promise<Buffer>;
};

const message = (
  id: string,
  what: string,
  bands: [withEngines: TSpamScoreBand, withoutEngines: TSpamScoreBand],
  finding: TCorpusMessage['finding'],
  spec: TSpec,
  envelopeDomain?: string,
): TCorpusMessage => ({
  id,
  what,
  band: bands[0],
  bandWithoutEngines: bands[1],
  finding,
  envelopeDomain: envelopeDomain ?? domainOf(spec.from ?? 'news@good.test'),
  build: (to, keys) => compose(to, keys, spec),
});

const SPAM_HTML = `<html><body><div><img src="https://good.test/a.jpg"><img src="https://good.test/b.jpg">
<p>CHEAP VIAGRA 100% FREE!!! Click <a href="http://bit.ly/3xYz">here</a> to claim your prize <a href="http://192.0.2.7/win">now</a></p>
<table><tr><td>Act now</div></body></html>`;

/** Text for a long newsletter: paragraphs that differ, so no engine reads them as padding. */
const longArticle = (paragraphs: number) =>
  Array.from(
    { length: paragraphs },
    (_, index) =>
      `<p>Recipe ${index + 1}: mix ${index + 2} cups of flour with ${index + 1} cups of water, rest the dough for ${index + 3} hours, shape it and bake it for ${20 + (index % 30)} minutes at ${200 + (index % 5) * 10} degrees.</p>`,
  ).join('\n');

export const CORPUS: TCorpusMessage[] = [
  // ---------------------------------------------------------------- clean
  message('clean-newsletter', 'a newsletter with everything right', ['Excellent', 'Excellent'], undefined, {}),
  message('clean-plain-text', 'a plain-text newsletter with everything right', ['Excellent', 'Excellent'], undefined, {
    html: null,
  }),
  message(
    'clean-with-images',
    'a newsletter with two pictures and enough words around them',
    ['Excellent', 'Excellent'],
    undefined,
    {
      html: newsletter(
        `${ARTICLE}<p><img src="https://good.test/rye.jpg" alt="The rye loaf"></p><p>The rye above rested for two days before baking; the crust cracks as it cools.</p><p><img src="https://good.test/spelt.jpg" alt="Spelt rolls"></p><p>The spelt rolls need one night in the fridge and a very hot oven.</p>`,
      ),
    },
  ),
  // ---------------------------------------------------------------- authentication
  message(
    'spf-softfail',
    'SPF soft-fails (~all does not name the server); DKIM aligned',
    ['Excellent', 'Excellent'],
    { id: 'spf', status: 'warn' },
    { from: 'Good News <news@softfail.test>' },
  ),
  message(
    'spf-fail',
    'SPF fails (-all does not name the server); DKIM aligned',
    ['Good', 'Good'],
    { id: 'spf', status: 'fail' },
    { from: 'Good News <news@spffail.test>' },
  ),
  message(
    'spf-none',
    'no SPF record; DKIM aligned',
    ['Good', 'Good'],
    { id: 'spf', status: 'fail' },
    { from: 'Good News <news@nospf.test>' },
  ),
  message(
    'spf-permerror',
    'two SPF records (a permanent error); DKIM aligned',
    ['Good', 'Good'],
    { id: 'spf', status: 'warn' },
    { from: 'Good News <news@permerror.test>' },
  ),
  message('dkim-none', 'not signed; SPF aligned', ['Good', 'Good'], { id: 'dkim', status: 'fail' }, { sign: null }),
  message(
    'dkim-fail',
    'signed, then the body changed; SPF aligned',
    ['Good', 'Good'],
    { id: 'dkim', status: 'fail' },
    { afterSigning: (raw) => raw.replace('three new breads', 'three new brEads') },
  ),
  message(
    'dkim-unaligned',
    "signed by the sending service's domain only; SPF aligned",
    ['Excellent', 'Excellent'],
    { id: 'dkim', status: 'warn' },
    { sign: { domain: 'esp.test' } },
  ),
  message(
    'dmarc-missing',
    'no DMARC record; SPF and DKIM aligned',
    ['Excellent', 'Excellent'],
    { id: 'dmarc', status: 'warn' },
    { from: 'Good News <news@nodmarc.test>' },
  ),
  message(
    'dmarc-fail-none',
    'through a sending service, nothing aligned; DMARC p=none',
    ['Good', 'Good'],
    { id: 'dmarc', status: 'fail' },
    { from: 'Good News <news@dmarcnone.test>', sign: { domain: 'esp.test' } },
    'esp.test',
  ),
  message(
    'dmarc-fail-quarantine',
    'through a sending service, nothing aligned; DMARC p=quarantine',
    ['Likely spam', 'Likely spam'],
    { id: 'dmarc', status: 'fail' },
    { from: 'Good News <news@quarantine.test>', sign: { domain: 'esp.test' } },
    'esp.test',
  ),
  message(
    'spoof',
    'a spoof: SPF fails, the signature is not the domain’s key, DMARC p=reject',
    ['Likely spam', 'Likely spam'],
    { id: 'dmarc', status: 'fail' },
    { from: 'Good News <news@forged.test>', sign: { domain: 'forged.test', key: 'signing' } },
  ),
  // ---------------------------------------------------------------- headers
  message(
    'date-future',
    'a Date three days ahead',
    ['Good', 'Good'],
    { id: 'date', status: 'fail' },
    { date: new Date(Date.now() + 3 * 24 * 3600_000) },
  ),
  message(
    'date-unparseable',
    'a Date that is not a date',
    ['Good', 'Good'],
    { id: 'date', status: 'fail' },
    { edit: (raw) => setHeader(raw, 'Date', 'yesterday around noon') },
  ),
  message(
    'date-missing',
    'no Date header',
    ['Good', 'Good'],
    { id: 'date', status: 'fail' },
    { edit: (raw) => raw.replace(/^Date:[^\r\n]*\r\n/im, '') },
  ),
  message(
    'subject-duplicate',
    'two Subject headers',
    ['Needs work', 'Needs work'],
    { id: 'duplicate-headers', status: 'fail' },
    { edit: (raw) => addHeaderAfter(raw, 'Subject', 'Subject: You have won a prize') },
  ),
  message(
    'subject-capitals',
    'a subject in capitals',
    ['Excellent', 'Excellent'],
    { id: 'subject', status: 'warn' },
    { subject: 'OUR NOVEMBER NEWS: THREE NEW RECIPES' },
  ),
  message(
    'message-id-invalid',
    'a Message-ID without brackets or domain',
    ['Needs work', 'Needs work'],
    { id: 'message-id', status: 'fail' },
    { edit: (raw) => setHeader(raw, 'Message-ID', '1732451234.987654') },
  ),
  message(
    'message-id-missing',
    'no Message-ID header',
    ['Needs work', 'Needs work'],
    { id: 'message-id', status: 'fail' },
    { edit: (raw) => raw.replace(/^Message-ID:[^\r\n]*\r\n/im, '') },
  ),
  message(
    'from-invalid',
    'a From with a space inside the address',
    ['Needs work', 'Needs work'],
    { id: 'from', status: 'fail' },
    { edit: (raw) => setHeader(raw, 'From', '"News" <news letter@good.test>') },
  ),
  message(
    'reply-to-elsewhere',
    'a Reply-To at another domain',
    ['Excellent', 'Excellent'],
    { id: 'reply-to', status: 'warn' },
    { headers: { 'Reply-To': 'replies@elsewhere.example' } },
  ),
  message(
    'list-unsubscribe-missing',
    'no List-Unsubscribe header',
    ['Excellent', 'Excellent'],
    { id: 'list-unsubscribe', status: 'warn' },
    { listUnsubscribe: false },
  ),
  message(
    'base64-text',
    'plain ASCII text parts sent in base64',
    ['Excellent', 'Excellent'],
    { id: 'encoding', status: 'warn' },
    { textEncoding: 'base64' },
  ),
  // ---------------------------------------------------------------- content
  message(
    'link-text-mismatch',
    'a link whose text names paypal.com and goes elsewhere',
    ['Good', 'Good'],
    { id: 'link-text', status: 'fail' },
    {
      html: newsletter(
        `${ARTICLE}<p>Check your account at <a href="https://account-check.example/login">https://www.paypal.com/account</a>.</p>`,
      ),
    },
  ),
  message(
    'javascript',
    'a script and an onclick in the HTML',
    ['Good', 'Good'],
    { id: 'scripts', status: 'fail' },
    {
      html: newsletter(
        `${ARTICLE}<script>document.location='https://good.test/track'</script><p><a href="https://good.test/more" onclick="track()">More</a></p>`,
      ),
    },
  ),
  message(
    'form',
    'a form asking for a password',
    ['Good', 'Good'],
    { id: 'forms', status: 'fail' },
    {
      html: newsletter(
        `${ARTICLE}<form action="https://good.test/login" method="post"><input name="email"><input name="password" type="password"><button>Sign in</button></form>`,
      ),
    },
  ),
  message(
    'html-only',
    'HTML without a plain-text part',
    ['Excellent', 'Excellent'],
    { id: 'parts', status: 'warn' },
    { text: null },
  ),
  message(
    'images-only',
    'three images and a line of text',
    ['Good', 'Good'],
    { id: 'image-ratio', status: 'fail' },
    {
      html: newsletter(
        '<p><img src="https://good.test/1.jpg"><img src="https://good.test/2.jpg"><img src="https://good.test/3.jpg"></p><p>Our news.</p>',
      ),
      text: `Our news.${FOOTER_TEXT}`,
    },
  ),
  message(
    'shortener',
    'a link through bit.ly',
    ['Good', 'Good'],
    { id: 'shorteners', status: 'fail' },
    { html: newsletter(`${ARTICLE}<p>Or <a href="https://bit.ly/3xYz">read it here</a>.</p>`) },
  ),
  message(
    'ip-link',
    'a link to a bare IP address',
    ['Good', 'Good'],
    { id: 'ip-links', status: 'fail' },
    { html: newsletter(`${ARTICLE}<p>Or <a href="http://192.0.2.7/recipes">read it here</a>.</p>`) },
  ),
  message(
    'unsubscribe-link-missing',
    'no unsubscribe link in the body (the header is there)',
    ['Excellent', 'Excellent'],
    { id: 'unsubscribe-link', status: 'warn' },
    {
      html: newsletter(ARTICLE, '<p>Visit <a href="https://good.test/">our bakery</a> any day but Monday.</p>'),
      text: `${ARTICLE_TEXT}\n\nVisit our bakery: https://good.test/`,
    },
  ),
  message(
    'html-broken',
    'tags left open',
    ['Excellent', 'Excellent'],
    { id: 'html', status: 'warn' },
    { html: `<html><body><div><table><tr><td>${ARTICLE}</div>${FOOTER}</body></html>` },
  ),
  message(
    'html-clipped',
    'HTML past Gmail’s 102 KB clip',
    ['Excellent', 'Excellent'],
    { id: 'clip', status: 'warn' },
    { html: newsletter(`${ARTICLE}${longArticle(900)}`) },
  ),
  message(
    'size-large',
    'a 1.2 MB message (a picture attached)',
    ['Good', 'Good'],
    { id: 'size', status: 'fail' },
    {
      // Random bytes, as a photograph is: nothing an engine can read as text.
      attachments: [{ filename: 'loaf.jpg', content: crypto.randomBytes(900 * 1024), contentType: 'image/jpeg' }],
    },
  ),
  // ---------------------------------------------------------------- spam
  message(
    'classic-spam',
    'capitals, drug words, a shortener, an IP link, images, broken HTML, no text part or unsubscribe',
    ['Likely spam', 'Likely spam'],
    { id: 'shorteners', status: 'fail' },
    {
      from: 'Best Offers <promo@good.test>',
      subject: 'FREE VIAGRA!!! ACT NOW, LIMITED TIME',
      html: SPAM_HTML,
      text: null,
      listUnsubscribe: false,
    },
  ),
  message(
    'gtube',
    'the GTUBE test string in an otherwise clean newsletter',
    ['Likely spam', 'Likely spam'],
    { id: 'gtube', status: 'fail' },
    { text: `${ARTICLE_TEXT}\n\n${GTUBE_LINE}${FOOTER_TEXT}` },
  ),
];

/**
 * "The first must score above the second", as a receiver ranks them: the clean newsletter
 * above every message with a fault, each milder fault above the harsher one of its kind,
 * every message above classic spam's harsher kin, and everything above GTUBE.
 */
export const CORPUS_PAIRS: [higher: string, lower: string][] = [
  ...CORPUS.filter((entry) => !entry.id.startsWith('clean-')).map(
    (entry) => ['clean-newsletter', entry.id] as [string, string],
  ),
  ['spf-softfail', 'spf-fail'],
  ['dkim-unaligned', 'dkim-fail'],
  ['dkim-unaligned', 'dkim-none'],
  ['dmarc-missing', 'dmarc-fail-none'],
  ['dmarc-fail-none', 'dmarc-fail-quarantine'],
  ['dmarc-fail-quarantine', 'spoof'],
  ['html-only', 'classic-spam'],
  ['subject-capitals', 'classic-spam'],
  ['shortener', 'classic-spam'],
  ['images-only', 'classic-spam'],
  ['date-missing', 'date-future'],
  ['date-missing', 'message-id-missing'],
  ['reply-to-elsewhere', 'link-text-mismatch'],
  ['html-clipped', 'size-large'],
  ...CORPUS.filter((entry) => entry.id !== 'gtube').map((entry) => [entry.id, 'gtube'] as [string, string]),
];
