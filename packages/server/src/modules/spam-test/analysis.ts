import net from 'node:net';
import { scoreVerdict, type TSpamCheck, type TSpamEngine, type TSpamReport } from '@sendwell/contracts';
import { Parser } from 'htmlparser2';
import { authenticate } from 'mailauth';
import { type ParsedMail, simpleParser } from 'mailparser';
import { askRspamd, askSpamAssassin } from './engines';

/**
 * A spam test's analysis of one message as a receiver would see it: authentication (SPF,
 * DKIM, DMARC, ARC through mailauth, and the From domain's alignment), headers, content
 * (parts, images against text, links, unsubscribe, broken HTML, size), DNS blocklists for
 * the sending address, and the content engines that are reachable. Each finding carries
 * the points it takes off the 10 and what to do about it; the score is 10 less their sum.
 */

export type TResolve = (name: string, type: string) => Promise<unknown>;

export type TAnalysisSettings = {
  /** DNS as the receiver sees it (mailauth's resolver signature: `dns.promises.resolve`). */
  resolve: TResolve;
  /** The receiving server's name, in the Authentication-Results header. */
  mta: string;
  dnsbl: string[];
  rspamdUrl: string | null;
  spamd: { host: string; port: number } | null;
};

export type TArrival = {
  raw: Buffer;
  /** The sending server's address and EHLO name, and the envelope, as the mailbox saw them. */
  ip: string;
  helo: string;
  mailFrom: string;
  rcptTo: string;
};

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

type THtmlFacts = { links: string[]; images: number; text: string; unclosed: string[]; stray: string[] };

/** One pass over the HTML: its links, images, visible text, and tags left open or closed twice. */
export const readHtml = (html: string): THtmlFacts => {
  const facts: THtmlFacts = { links: [], images: 0, text: '', unclosed: [], stray: [] };
  const open: string[] = [];
  let hidden = 0;
  const parser = new Parser(
    {
      onopentag: (name, attributes) => {
        if (name === 'a' && attributes.href) facts.links.push(attributes.href);
        if (name === 'img') facts.images++;
        if (name === 'style' || name === 'script' || name === 'head' || name === 'title') hidden++;
        if (!VOID_TAGS.has(name)) open.push(name);
      },
      ontext: (text) => {
        if (hidden === 0) facts.text += text;
      },
      onclosetag: (name, isImplied) => {
        if (name === 'style' || name === 'script' || name === 'head' || name === 'title')
          hidden = Math.max(0, hidden - 1);
        if (VOID_TAGS.has(name)) return;
        const at = open.lastIndexOf(name);
        if (at === -1) {
          facts.stray.push(name);
          return;
        }
        // Tags HTML closes by itself (p, li, td, …) are not mistakes; anything else still
        // open when its parent closes, or at the end, is.
        for (const left of open.splice(at)) {
          if (left !== name || isImplied) {
            if (
              !['p', 'li', 'td', 'th', 'tr', 'tbody', 'thead', 'option', 'html', 'body', 'head', 'dt', 'dd'].includes(
                left,
              )
            )
              facts.unclosed.push(left);
          }
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, recognizeSelfClosing: true },
  );
  parser.write(html);
  parser.end();
  facts.text = facts.text.replace(/\s+/g, ' ').trim();
  return facts;
};

const hostOf = (link: string) => {
  try {
    return new URL(link).hostname.toLowerCase().replace(/^www\./, '');
  } catch {
    return null;
  }
};

const domainOf = (address: string) => address.slice(address.lastIndexOf('@') + 1).toLowerCase();

const check = (
  category: TSpamCheck['category'],
  id: string,
  title: string,
  status: TSpamCheck['status'],
  penalty: number,
  detail: string,
  advice: string | null = null,
): TSpamCheck => ({ id, category, title, status, penalty, detail, advice });

type TMailauthResult = Awaited<ReturnType<typeof authenticate>>;

const authenticationChecks = (auth: TMailauthResult | null, fromDomain: string, ip: string): TSpamCheck[] => {
  if (!auth) {
    return [
      check(
        'authentication',
        'auth-error',
        'Authentication',
        'warn',
        1,
        'The message could not be checked for SPF, DKIM and DMARC.',
      ),
    ];
  }
  const checks: TSpamCheck[] = [];

  const spf = (auth.spf || undefined) as
    | { domain?: string; status?: { result?: string; comment?: string } }
    | undefined;
  const spfResult = spf?.status?.result || 'none';
  const spfDomain = spf?.domain || fromDomain;
  const spfAdvice = `Add ${ip} to the SPF record of ${spfDomain} (a TXT record such as "v=spf1 ip4:${ip} include:… ~all"), or send through the server it names.`;
  if (spfResult === 'pass') {
    checks.push(check('authentication', 'spf', 'SPF', 'pass', 0, `${ip} may send for ${spfDomain}.`));
  } else if (spfResult === 'fail') {
    checks.push(
      check('authentication', 'spf', 'SPF', 'fail', 2, `${spfDomain}'s SPF record does not allow ${ip}.`, spfAdvice),
    );
  } else if (spfResult === 'softfail') {
    checks.push(
      check(
        'authentication',
        'spf',
        'SPF',
        'warn',
        1,
        `${spfDomain}'s SPF record marks ${ip} as suspect (~all).`,
        spfAdvice,
      ),
    );
  } else if (spfResult === 'none') {
    checks.push(
      check(
        'authentication',
        'spf',
        'SPF',
        'fail',
        1.5,
        `${spfDomain} has no SPF record.`,
        `Add an SPF record: a TXT record on ${spfDomain} such as "v=spf1 ip4:${ip} ~all".`,
      ),
    );
  } else {
    checks.push(
      check(
        'authentication',
        'spf',
        'SPF',
        'warn',
        spfResult === 'permerror' ? 1.5 : 0.5,
        `SPF ${spfResult}: ${spf?.status?.comment || 'the record could not be read'}.`,
        spfResult === 'permerror' ? `Fix the SPF record of ${spfDomain}: receivers cannot read it.` : null,
      ),
    );
  }

  type TDkimRow = {
    signingDomain?: string;
    selector?: string;
    status?: { result?: string; comment?: string; aligned?: string | false };
  };
  const signatures = ((auth.dkim as { results?: TDkimRow[] }).results ?? []).filter(
    (row) => row.status?.result !== 'none' || row.signingDomain,
  );
  const passing = signatures.filter((row) => row.status?.result === 'pass');
  const aligned = passing.find((row) => row.status?.aligned);
  const dkimAdvice = `Sign mail for ${fromDomain} with DKIM: publish the key your sending service gives you as a TXT record at <selector>._domainkey.${fromDomain}.`;
  if (aligned) {
    checks.push(
      check(
        'authentication',
        'dkim',
        'DKIM',
        'pass',
        0,
        `Signed by ${aligned.signingDomain} (selector ${aligned.selector}), which matches the From domain.`,
      ),
    );
  } else if (passing.length > 0) {
    checks.push(
      check(
        'authentication',
        'dkim',
        'DKIM',
        'warn',
        0.5,
        `Signed by ${passing.map((row) => row.signingDomain).join(', ')}, not by the From domain ${fromDomain}.`,
        dkimAdvice,
      ),
    );
  } else if (signatures.length > 0) {
    const failed = signatures[0]!;
    checks.push(
      check(
        'authentication',
        'dkim',
        'DKIM',
        'fail',
        2,
        `The signature of ${failed.signingDomain ?? 'an unknown domain'} does not verify (${failed.status?.result}: ${failed.status?.comment ?? 'no reason given'}).`,
        `Something changed the message after it was signed, or the key at ${failed.selector ?? '<selector>'}._domainkey.${failed.signingDomain ?? fromDomain} is not the one it was signed with.`,
      ),
    );
  } else {
    checks.push(
      check('authentication', 'dkim', 'DKIM', 'fail', 1.5, 'The message is not signed with DKIM.', dkimAdvice),
    );
  }

  const dmarc = (auth.dmarc || undefined) as
    | { status?: { result?: string; comment?: string }; p?: string; policy?: string }
    | undefined;
  const dmarcResult = dmarc?.status?.result || 'none';
  if (dmarcResult === 'pass') {
    checks.push(
      check(
        'authentication',
        'dmarc',
        'DMARC',
        'pass',
        0,
        `The From domain ${fromDomain} is aligned with SPF or DKIM (policy ${dmarc?.p || 'none'}).`,
      ),
    );
  } else if (dmarcResult === 'fail') {
    const policy = dmarc?.policy || dmarc?.p || 'none';
    checks.push(
      check(
        'authentication',
        'dmarc',
        'DMARC',
        'fail',
        policy === 'reject' ? 3 : policy === 'quarantine' ? 2 : 1,
        `Neither SPF nor DKIM passes for ${fromDomain}; its DMARC policy is "${policy}"${policy === 'reject' ? ': receivers refuse such mail' : policy === 'quarantine' ? ': receivers put such mail in spam' : ''}.`,
        `Make SPF or DKIM pass for ${fromDomain} itself (a signature with d=${fromDomain}, or a return path at ${fromDomain}).`,
      ),
    );
  } else if (dmarcResult === 'none') {
    checks.push(
      check(
        'authentication',
        'dmarc',
        'DMARC',
        'warn',
        0.5,
        `${fromDomain} publishes no DMARC policy.`,
        `Publish one: a TXT record at _dmarc.${fromDomain} such as "v=DMARC1; p=none; rua=mailto:dmarc@${fromDomain}". Gmail and Yahoo require it of bulk senders.`,
      ),
    );
  } else {
    checks.push(
      check(
        'authentication',
        'dmarc',
        'DMARC',
        'warn',
        0.5,
        `DMARC ${dmarcResult}: ${dmarc?.status?.comment || 'the policy could not be read'}.`,
      ),
    );
  }

  const arc = (auth.arc || undefined) as { status?: { result?: string } } | undefined;
  const arcResult = arc?.status?.result || 'none';
  checks.push(
    arcResult === 'fail'
      ? check('authentication', 'arc', 'ARC', 'warn', 0.5, 'The ARC chain of a forwarder does not verify.')
      : check(
          'authentication',
          'arc',
          'ARC',
          'info',
          0,
          arcResult === 'pass' ? 'A valid ARC chain.' : 'No ARC chain (only forwarders add one).',
        ),
  );
  return checks;
};

const headerChecks = (mail: ParsedMail): TSpamCheck[] => {
  const checks: TSpamCheck[] = [];
  // mailparser folds List-* headers into one structured `list` entry: ask the raw lines.
  const lines = new Set(mail.headerLines.map((line) => line.key.toLowerCase()));
  const has = (name: string) => lines.has(name);
  const from = mail.from?.value ?? [];
  checks.push(
    from.length === 1 && from[0]!.address
      ? check('headers', 'from', 'From', 'pass', 0, `From: ${mail.from!.text}`)
      : check(
          'headers',
          'from',
          'From',
          'fail',
          3,
          from.length === 0 ? 'The message has no From address.' : 'The From header names more than one address.',
          'Send from exactly one address.',
        ),
  );
  checks.push(
    has('message-id')
      ? check('headers', 'message-id', 'Message-ID', 'pass', 0, `Message-ID: ${mail.messageId}`)
      : check(
          'headers',
          'message-id',
          'Message-ID',
          'fail',
          1,
          'The message has no Message-ID header.',
          'Your sending service should add one; a message without it looks hand-made.',
        ),
  );
  checks.push(
    has('date')
      ? check(
          'headers',
          'date',
          'Date',
          'pass',
          0,
          `Date: ${mail.headers.get('date') instanceof Date ? (mail.headers.get('date') as Date).toUTCString() : String(mail.headers.get('date'))}`,
        )
      : check(
          'headers',
          'date',
          'Date',
          'fail',
          0.5,
          'The message has no Date header.',
          'Your sending service should add one.',
        ),
  );
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
        `The subject is in capitals: "${subject}".`,
        'Write the subject in sentence case.',
      ),
    );
  } else {
    checks.push(check('headers', 'subject', 'Subject', 'pass', 0, `Subject: ${subject}`));
  }
  const replyTo = mail.replyTo?.value[0]?.address;
  const fromAddress = from[0]?.address;
  if (replyTo && fromAddress && domainOf(replyTo) !== domainOf(fromAddress)) {
    checks.push(
      check(
        'headers',
        'reply-to',
        'Reply-To',
        'info',
        0,
        `Replies go to ${replyTo}, at another domain than the From address.`,
      ),
    );
  }
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

const contentChecks = (mail: ParsedMail, raw: Buffer): TSpamCheck[] => {
  const checks: TSpamCheck[] = [];
  const html = typeof mail.html === 'string' ? mail.html : '';
  // mailparser makes a text from the HTML when there is none: whether the sender wrote one
  // is read from the MIME parts (a message without a Content-Type is plain text).
  const hasTextPart =
    /^content-type:\s*text\/plain/im.test(raw.toString('latin1')) || !/^content-type:/im.test(headersOf(raw));
  const text = hasTextPart ? (mail.text ?? '') : '';
  const facts = html ? readHtml(html) : { links: [], images: 0, text: text.trim(), unclosed: [], stray: [] };
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
  const words = facts.text.length;
  if (facts.images > 0 && words < (400 * Math.min(facts.images, 3)) / 3) {
    checks.push(
      check(
        'content',
        'image-ratio',
        'Images and text',
        words < 100 ? 'fail' : 'warn',
        words < 100 ? 1.5 : 0.5,
        `${facts.images} image${facts.images === 1 ? '' : 's'} and ${words} characters of text.`,
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
        `${facts.images} image${facts.images === 1 ? '' : 's'} and ${words} characters of text.`,
      ),
    );
  }
  const hosts = facts.links.map(hostOf).filter((host): host is string => host !== null);
  const shortened = [...new Set(hosts.filter((host) => SHORTENERS.has(host)))];
  const numeric = [...new Set(hosts.filter((host) => net.isIP(host.replace(/^\[|\]$/g, '')) !== 0))];
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
        1,
        `Links to ${numeric.join(', ')}.`,
        'Link to a domain name, not to a server address.',
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
  const htmlBytes = Buffer.byteLength(html);
  checks.push(
    htmlBytes > CLIP_BYTES
      ? check(
          'content',
          'size',
          'Size',
          'warn',
          0.5,
          `The HTML is ${Math.round(htmlBytes / 1024)} KB; Gmail clips messages past 102 KB.`,
          'Trim the HTML (inline styles, comments, unused markup).',
        )
      : check('content', 'size', 'Size', 'pass', 0, `The message is ${Math.max(1, Math.round(raw.length / 1024))} KB.`),
  );
  return checks;
};

const isPublicAddress = (ip: string) => {
  if (net.isIPv4(ip)) {
    const [a, b] = ip.split('.').map(Number) as [number, number];
    return !(
      a === 10 ||
      a === 127 ||
      a === 0 ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 100 && b >= 64 && b <= 127)
    );
  }
  if (net.isIPv6(ip)) return !/^(::1$|fe80:|fc|fd|::ffff:(127|10|192\.168)\.)/i.test(ip);
  return false;
};

const blocklistChecks = async (ip: string, zones: string[], resolve: TResolve): Promise<TSpamCheck[]> => {
  if (zones.length === 0)
    return [check('blocklists', 'dnsbl', 'Blocklists', 'info', 0, 'No blocklists configured (SPAM_TEST_DNSBL).')];
  if (!net.isIPv4(ip) || !isPublicAddress(ip)) {
    return [
      check(
        'blocklists',
        'dnsbl',
        'Blocklists',
        'info',
        0,
        `Not looked up: ${ip || 'the sender'} is not a public IPv4 address.`,
      ),
    ];
  }
  const reversed = ip.split('.').reverse().join('.');
  const answers = await Promise.all(
    zones.map(async (zone) => {
      try {
        const found = (await resolve(`${reversed}.${zone}`, 'A')) as string[];
        // 127.255.255.x answers mean "refused" (e.g. Spamhaus through a public resolver), not "listed".
        const listed = found.filter((answer) => answer.startsWith('127.') && !answer.startsWith('127.255.255.'));
        return { zone, listed: listed.length > 0, failed: listed.length === 0 && found.length > 0 };
      } catch (error) {
        const code = (error as { code?: string }).code;
        return { zone, listed: false, failed: code !== 'ENOTFOUND' && code !== 'ENODATA' };
      }
    }),
  );
  return answers.map(({ zone, listed, failed }, index) =>
    listed
      ? check(
          'blocklists',
          `dnsbl-${index}`,
          zone,
          'fail',
          1.5,
          `${ip} is listed on ${zone}.`,
          `Ask your sending service about ${ip}, or request delisting at ${zone}'s site.`,
        )
      : failed
        ? check('blocklists', `dnsbl-${index}`, zone, 'info', 0, `${zone} could not be asked.`)
        : check('blocklists', `dnsbl-${index}`, zone, 'pass', 0, `${ip} is not listed on ${zone}.`),
  );
};

/**
 * The engines judge the same thing (the content), so only the larger of their penalties
 * counts: SpamAssassin's score (5 = spam) and rspamd's (15 = reject) each map to at most 3.
 */
const engineCheck = (engines: TSpamEngine[]): TSpamCheck => {
  const scored = engines.filter((engine) => engine.status === 'scored' && engine.score !== null);
  if (scored.length === 0) {
    return check(
      'engines',
      'engines',
      'Content engines',
      'info',
      0,
      "No content engine was reachable; the score rests on Sendwell's own checks.",
    );
  }
  const penaltyOf = (engine: TSpamEngine) =>
    engine.name === 'rspamd'
      ? Math.min(3, Math.max(0, engine.score!) * 0.4)
      : Math.min(3, Math.max(0, engine.score!) * 0.6);
  const penalty = Math.round(Math.max(...scored.map(penaltyOf)) * 10) / 10;
  const detail = scored.map((engine) => `${engine.name} ${engine.score} (spam from ${engine.threshold})`).join('; ');
  const worst = scored.flatMap((engine) =>
    engine.rules
      .filter((rule) => rule.score > 0)
      .slice(0, 2)
      .map((rule) => rule.description || rule.name),
  );
  return check(
    'engines',
    'engines',
    'Content engines',
    penalty === 0 ? 'pass' : penalty >= 1.5 ? 'fail' : 'warn',
    penalty,
    detail,
    penalty > 0 && worst.length > 0 ? `What the engines count against it: ${worst.join('; ')}.` : null,
  );
};

/** The headers as they arrived (everything before the first blank line). */
export const headersOf = (raw: Buffer) => {
  const text = raw.toString('utf8');
  const end = text.search(/\r?\n\r?\n/);
  return end === -1 ? text : text.slice(0, end);
};

export const analyseMessage = async (arrival: TArrival, settings: TAnalysisSettings): Promise<TSpamReport> => {
  const mail = await simpleParser(arrival.raw, { skipImageLinks: true });
  const fromAddress = mail.from?.value[0]?.address ?? '';
  const fromDomain = fromAddress ? domainOf(fromAddress) : '';
  const [auth, blocklists, rspamd, spamAssassin] = await Promise.all([
    authenticate(arrival.raw, {
      ip: arrival.ip,
      helo: arrival.helo,
      sender: arrival.mailFrom,
      mta: settings.mta,
      resolver: settings.resolve,
      disableBimi: true,
    }).catch(() => null),
    blocklistChecks(arrival.ip, settings.dnsbl, settings.resolve),
    askRspamd(settings.rspamdUrl, arrival.raw, {
      ip: arrival.ip,
      helo: arrival.helo,
      from: arrival.mailFrom,
      rcpt: arrival.rcptTo,
    }),
    askSpamAssassin(settings.spamd, arrival.raw),
  ]);
  const engines = [rspamd, spamAssassin];
  const checks = [
    ...authenticationChecks(auth, fromDomain, arrival.ip),
    ...headerChecks(mail),
    ...contentChecks(mail, arrival.raw),
    ...blocklists,
    engineCheck(engines),
  ];
  const penalties = checks.reduce((sum, item) => sum + item.penalty, 0);
  const score = Math.round(Math.min(10, Math.max(0, 10 - penalties)) * 10) / 10;
  return {
    score,
    verdict: scoreVerdict(score),
    checks,
    engines,
    authenticationResults: auth?.headers.trim() ?? '',
    fromDomain,
    envelopeFrom: arrival.mailFrom,
    remoteIp: arrival.ip,
    sizeBytes: arrival.raw.length,
    analysedAt: new Date().toISOString(),
  };
};
