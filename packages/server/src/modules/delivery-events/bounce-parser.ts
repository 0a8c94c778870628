// About 680 lines on purpose: the passes over a report (its report part, the shapes of text
// bounces, the signs of an automatic reply) run in one order, which reads best in one place;
// what the words mean is `bounce-reasons.ts`, the MIME tree `platform/mime.ts`.
import { createHash } from 'node:crypto';
import { htmlProblemOf } from '@sendwell/contracts';
import { convert as htmlToText } from 'html-to-text';
import {
  decodeHeaderValue,
  headerOf,
  parseHeaders,
  parseMime,
  partsOf,
  readableValue,
  readHeaderFields,
  type TMimePart,
  textOf,
} from '../../platform/mime';
import {
  classify,
  enhancedStatusOf,
  hasDelayWords,
  hasGivenUp,
  isDelayNotice,
  REASON_LABELS,
  reasonOf,
  replyCodeOf,
  replyOf,
  type TBounceOutcome,
  type TBounceReason,
} from './bounce-reasons';

/**
 * Reads what comes back about a message, the way the world writes it (R32): RFC 3464
 * delivery reports (any charset, several recipients, `message/global-delivery-status`), the
 * text bounces of servers that write none (Exim, qmail, Postfix and sendmail without a
 * report part, Exchange, Domino, MDaemon, Courier, Yahoo), complaints (ARF feedback reports,
 * Microsoft's JMRP with the message attached), DMARC failure reports (about the domain, not a
 * recipient), and what is not a bounce at all: out-of-office and vacation replies, read
 * receipts, challenge/response notices, success notices. The reading follows sisimai's
 * (a pass per known shape, then the words): a report part first, then the shape of a text
 * bounce, and only when neither is there the signs of an automatic reply, so an Exim bounce
 * that also says `Auto-Submitted: auto-replied` is still a bounce (issue 27 §3).
 *
 * What each recipient's outcome means is `bounce-reasons.ts`; what is recorded for it,
 * `bounces.ts`.
 */

/** One recipient a report says something about. */
export type TNamedOutcome = {
  /** The address as the report names it; null when a text bounce names none. */
  address: string | null;
  outcome: TBounceOutcome;
  reason: TBounceReason;
  /** The enhanced status code (5.1.1), when there is one. */
  status: string | null;
  /** The receiving server's own words about this recipient (issue 27 §10). */
  diagnostic: string;
};

/** What the report quotes of the original message: how it is tied to its recipient. */
export type TOriginalRefs = {
  /** Message-IDs of the quoted original (`<ref@domain>`, `delivery/message.ts`). */
  messageIds: string[];
  /** Envelope senders it names: Return-Path, X-Postfix-Sender, ARF's Original-Mail-From (VERP). */
  envelopeSenders: string[];
  /** Unsubscribe references from its List-Unsubscribe. */
  unsubscribeRefs: string[];
};

export type TReport =
  | { kind: 'none'; why: string }
  | {
      /** A DMARC (or SPF/DKIM) failure report: about the sending domain, nobody's bounce. */
      kind: 'auth-failure';
      detail: string;
      reportId: string | null;
    }
  | {
      kind: 'complaint';
      /** ARF's Feedback-Type (abuse, fraud, other), or `abuse` for a JMRP report. */
      feedbackType: string;
      /** The original recipient where the report gives it (often redacted). */
      originalRecipients: string[];
      detail: string;
      description: string;
      reportId: string | null;
      original: TOriginalRefs;
    }
  | {
      kind: 'bounce';
      outcomes: TNamedOutcome[];
      description: string;
      reportId: string | null;
      original: TOriginalRefs;
    };

/** Words kept per diagnostic (the event and the suppression keep 1,000 characters). */
const TEXT_LIMIT = 1000;

const clip = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, TEXT_LIMIT);

const ADDRESS = /[^\s<>()"',;:[\]]+@[^\s<>()"',;:[\]]+\.[a-z0-9-]{2,}/i;

/** `rfc822; <someone@example.com>` (or a malformed `<someone@example.com>`) → the address. */
const addressOf = (value: string | undefined) => {
  if (!value) return null;
  const bare = value.replace(/^\s*[a-z0-9-]+\s*;\s*/i, '');
  return ADDRESS.exec(bare)?.[0]?.replace(/\.$/, '') ?? null;
};

const uniqueAddresses = (addresses: string[]) => {
  const seen = new Set<string>();
  return addresses.filter((address) => {
    const key = address.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
};

// --- the quoted original ---

const isAttachedMessage = (part: TMimePart) => part.type === 'message/rfc822' || part.type === 'message/global';
const isAttachedHeaders = (part: TMimePart) =>
  part.type === 'text/rfc822-headers' || part.type === 'text/rfc822-header' || part.type === 'message/rfc822-headers';

/**
 * Where a text bounce's copy of the original starts (Exim, qmail, sendmail, Domino, Yahoo,
 * Gmail, Exchange): the human text ends there, and the copy's headers tie it to its message.
 */
const ORIGINAL_MARKERS =
  /^[ \t]*(?:-+ ?This is a copy of the message|-+ ?Below this line is a copy of the (?:message|mail header)|-+ ?Below the next line is a copy|-+ ?Original message follows|-+ ?Message header follows|-+ ?Original message -+|-+ ?Returned Message -+|-+ ?Original Message Headers|Original message headers:|-+ ?The header of the original message|-+ ?Headers of the original message|-+ ?Forwarded message|--- Original message follows|-+ ?Unsent Message below)[^\n]*$/im;

/** The header blocks of the quoted original: attached message or headers, or a text copy. */
const originalHeaderBlocks = (root: TMimePart, texts: string[]) => {
  const blocks: Map<string, string[]>[] = [];
  for (const part of partsOf(root)) {
    if (part === root) continue;
    if (isAttachedMessage(part) && part.children[0]) blocks.push(part.children[0].headers);
    else if (isAttachedHeaders(part)) blocks.push(parseHeaders(textOf(part).replace(/^\s+/, '')));
  }
  for (const text of texts) {
    const marker = ORIGINAL_MARKERS.exec(text);
    if (marker) blocks.push(parseHeaders(text.slice(marker.index + marker[0].length).replace(/^\s+/, '')));
  }
  return blocks;
};

const refsOf = (blocks: Map<string, string[]>[], extraSenders: string[]): TOriginalRefs => {
  const all = (name: string) => blocks.flatMap((headers) => headers.get(name) ?? []);
  const unsubscribeRefs = all('list-unsubscribe').flatMap((value) => [
    ...[...value.matchAll(/\/unsubscribe\/([0-9a-z-]{16,40})/gi)].map((match) => match[1]!),
    ...[...value.matchAll(/subject=unsubscribe(?:%20|\+|\s)([0-9a-z-]{16,40})/gi)].map((match) => match[1]!),
  ]);
  return {
    messageIds: [...new Set(all('message-id').map((value) => value.trim()))],
    envelopeSenders: uniqueAddresses(
      [...all('return-path'), ...extraSenders].flatMap((value) => addressOf(value) ?? []),
    ),
    unsubscribeRefs: [...new Set(unsubscribeRefs.map((ref) => ref.toLowerCase()))],
  };
};

// --- the human text ---

/** The report's own text (not the attached original's), each part in its charset. */
const humanTextsOf = (root: TMimePart) => {
  const parts = partsOf(root).filter(
    (part) =>
      part.children.length === 0 &&
      !isAttachedHeaders(part) &&
      !/delivery-status|feedback-report|disposition-notification/.test(part.type),
  );
  const plain = parts.filter(
    (part) => part.type === 'text/plain' && !/attachment/i.test(headerOf(part, 'content-disposition')),
  );
  if (plain.length > 0) return plain.map(textOf);
  return parts.filter((part) => part.type === 'text/html').map((part) => textOfHtml(textOf(part)));
};

/**
 * The most of an HTML-only report read as text: a bounce says what happened in its first
 * lines, and html-to-text takes seconds over a large table. A report is mail from anyone,
 * read in the worker's thread, so it is bounded like a user's HTML (R40): its head alone, and
 * none of it when nested past the bound (the parser under html-to-text is quadratic there).
 */
const REPORT_HTML_READ = 64 * 1024;

const textOfHtml = (html: string) => {
  const head = html.slice(0, REPORT_HTML_READ);
  if (htmlProblemOf(head)) return '';
  return htmlToText(head, { wordwrap: false, selectors: [{ selector: 'a', options: { ignoreHref: true } }] });
};

/** The text before the copy of the original. */
const beforeOriginal = (text: string) => {
  const marker = ORIGINAL_MARKERS.exec(text);
  return marker ? text.slice(0, marker.index) : text;
};

// --- RFC 3464 reports ---

const DSN_TYPES = new Set([
  'message/delivery-status',
  'message/global-delivery-status',
  'message/xdelivery-status',
  'text/delivery-status',
]);

/** The fields of a delivery-status part, in order ("Name: value", continuation lines folded in). */
const dsnFieldsOf = (text: string): [string, string][] =>
  readHeaderFields(text).map((field) => [field.name, readableValue(field)]);

type TRecipientFields = Map<string, string>;

/**
 * The per-message fields and one map per recipient: a recipient starts at its
 * Original-Recipient or Final-Recipient (blank lines are not trusted to separate them).
 */
const dsnGroupsOf = (text: string) => {
  const perMessage = new Map<string, string>();
  const recipients: TRecipientFields[] = [];
  let current: TRecipientFields | null = null;
  for (const [name, rawValue] of dsnFieldsOf(text)) {
    const value = decodeHeaderValue(rawValue);
    const isAddressField = name === 'final-recipient' || name === 'original-recipient';
    // A recipient's Original- and Final-Recipient lines belong together; a second one of
    // either, or one after the recipient's Action or Status, starts the next recipient.
    if (
      isAddressField &&
      (!current ||
        current.has(name) ||
        current.has('action') ||
        current.has('status') ||
        current.has('diagnostic-code'))
    ) {
      current = new Map();
      recipients.push(current);
    }
    if (current) {
      if (!current.has(name)) current.set(name, value);
    } else {
      perMessage.set(name, value);
    }
  }
  return { perMessage, recipients };
};

/** A Diagnostic-Code's words without its type (`smtp; `), continuation lines joined. */
const diagnosticOf = (value: string | undefined) => (value ? value.replace(/^\s*[a-z0-9-]+\s*;\s*/i, '') : '');

/** The lines of a text about one address: from where it is named to the next address named. */
const segmentAbout = (text: string, address: string) => {
  const at = text.toLowerCase().indexOf(address.toLowerCase());
  if (at < 0) return '';
  return text.slice(at, at + 1500);
};

const fromDsn = (statusTexts: string[], human: string, subject: string): TNamedOutcome[] | 'success' => {
  const outcomes: TNamedOutcome[] = [];
  let hasSuccess = false;
  for (const text of statusTexts) {
    const { recipients } = dsnGroupsOf(text);
    for (const fields of recipients) {
      const action = fields.get('action')?.toLowerCase().split(/[\s(]/)[0] ?? null;
      const status = /(?<![\d.])[245]\.[0-7]\.\d{1,3}(?!\.?\d)/.exec(fields.get('status') ?? '')?.[0] ?? null;
      // Delivered, relayed, expanded, or a success status (2.x.x) with no Action: no failure.
      if (
        action === 'delivered' ||
        action === 'relayed' ||
        action === 'expanded' ||
        (status?.startsWith('2') && action !== 'failed' && action !== 'delayed')
      ) {
        hasSuccess = true;
        continue;
      }
      const address = addressOf(fields.get('final-recipient')) ?? addressOf(fields.get('original-recipient'));
      const diagnostic = diagnosticOf(fields.get('diagnostic-code'));
      // A report whose recipient has no words of its own: the human text about it says why.
      if (!action && !status && !diagnostic) continue;
      const about = diagnostic || (address ? segmentAbout(human, address) : '') || human;
      const classified = classify({
        action,
        status: status && !/\.0\.0$/.test(status) ? status : (replyStatus(diagnostic) ?? status),
        words: `${about}\n${subject}`,
      });
      outcomes.push({
        address,
        ...classified,
        diagnostic: clip(diagnostic || humanLine(about) || `${action ?? 'failed'} ${status ?? ''}`),
      });
    }
  }
  return outcomes.length === 0 && hasSuccess ? 'success' : outcomes;
};

/** A more specific enhanced code from the diagnostic than a generic `5.0.0` status. */
const replyStatus = (diagnostic: string) => /(?<![\d.])[245]\.[0-7]\.\d{1,3}(?!\.?\d)/.exec(diagnostic)?.[0] ?? null;

/**
 * The words of a text that say why (issue 27 §10: the server's own sentence, not a status
 * line): Exchange's quoted reply; else the first failure reply, from its code on, with its
 * continuation lines (indented deeper, or a multi-line reply's `550-` lines); else the line
 * with a reason's words; else a line about a delay or a give-up.
 */
const humanLine = (text: string) => {
  const quoted = /remote server returned '([^']+)'/i.exec(text)?.[1];
  if (quoted) return quoted;
  const lines = text.split(/\r?\n/);
  const indentOf = (line: string) => /^[ \t]*/.exec(line)![0].length;
  for (const [index, line] of lines.entries()) {
    const reply = replyOf(`\n${line}`);
    if (!reply) continue;
    const words = [line.slice(Math.max(0, reply.at - 1)).trim()];
    let isMultiline = new RegExp(`^${reply.code}-`).test(words[0]!);
    for (const next of lines.slice(index + 1, index + 8)) {
      const isContinued =
        next.trim() !== '' &&
        (indentOf(next) > indentOf(line) || (isMultiline && new RegExp(`^\\s*${reply.code}[ -]`).test(next)));
      if (!isContinued) break;
      isMultiline = new RegExp(`^\\s*${reply.code}-`).test(next);
      words.push(next.trim());
    }
    return words.join(' ');
  }
  const trimmed = lines.map((line) => line.trim()).filter(Boolean);
  return (
    trimmed.find((line) => reasonOf(line, null) !== 'other') ??
    trimmed.find((line) => hasDelayWords(line) || hasGivenUp(line)) ??
    ''
  );
};

// --- text bounces ---

const BOUNCE_SUBJECTS =
  /(undeliver|undelivered|not delivered|delivery (status notification|has failed|failure|failed|notification)|mail delivery (failed|failure|subsystem|system)|returned mail|failure notice|mail system error|delivery (delayed|delay)|delayed mail|warning: (message|could not send)|permanent delivery failure|non remis|unzustellbar|nicht zustellbar|no se pudo entregar|non recapitabile|nondeliverable|недоставлен|не доставлен|не удалось доставить|退信|无法投递|未能成功送达|配信(エラー|不能)|送信エラー|returned to sender)/i;
const BOUNCE_SENDERS = /(mailer-daemon|postmaster|mail delivery (system|subsystem)|mdaemon|lotus domino|notes mail)/i;
const BOUNCE_BODIES =
  /(qmail-send program|this message was created automatically by mail delivery software|mail delivery failed|delivery has failed to these recipients|could not be delivered to one or more|was not delivered to|not listed in domino directory|transcript of session follows|session transcript|delays in delivering your message|undeliverable mail|remote host said:|remote server returned '|sorry, we were unable to deliver your message|your message (could not|couldn't|wasn't|was not) (be )?delivered|permanent fatal (delivery )?errors|the following addresses had (permanent fatal|transient non-fatal) errors|i'm afraid i wasn't able to deliver|delivery to the following recipients? (failed|has been delayed)|message not delivered)/i;

/**
 * Header fields of the original that name addresses which are not its recipients: a
 * transcript or a copied header block quotes them (MDaemon's `*  Message-ID: <…>`, a
 * `From:` or `Return-Path:` line), and a Message-ID reads like an address.
 */
const ORIGINAL_HEADER_LINE =
  /(?:^|[\s*>])(?:message-id|references|in-reply-to|return-path|from|sender|reply-to|mail from|x-postfix-sender)\s*:[^\n]*$/i;

/** Whether the address at this index stands on a line quoting one of those fields. */
const isOnOriginalHeaderLine = (text: string, at: number) =>
  ORIGINAL_HEADER_LINE.test(text.slice(text.lastIndexOf('\n', at - 1) + 1, at));

/** Addresses a text bounce names as its failed recipients, in order. */
const namedAddressesOf = (text: string, failedHeader: string) => {
  const found: { address: string; at: number }[] = [];
  const add = (address: string | null | undefined, at: number) => {
    if (address) found.push({ address: address.replace(/\.$/, ''), at });
  };
  for (const address of failedHeader.split(/[,\s]+/))
    add(addressOf(address), text.toLowerCase().indexOf(address.toLowerCase()));
  const patterns = [
    // `<someone@example.org>:` (qmail, Yahoo, Postfix without a report part)
    /^[ \t]*<([^<>\s]+@[^<>\s]+)>:?/gm,
    // An address alone on its line, bare or after a name (Exim, Exchange, Domino, Gmail)
    /^[ \t]*(?:[^@<>()\n]{0,80}[(<])?([^\s<>()"']+@[^\s<>()"']+\.[a-z0-9-]{2,})[)>]?[ \t]*$/gim,
    // MDaemon: `Warning: someone@example.org - User unknown!`
    /Warning:\s*<?([^\s<>]+@[^\s<>]+?)>?\s+-\s/gi,
    // A transcript's RCPT TO (MDaemon, Courier, sendmail, Exim's "after RCPT TO:<…>")
    /RCPT TO:\s*<([^<>\s]+@[^<>\s]+)>/gi,
    // Domino: "User Jane (jane@example.org) not listed"
    /\buser\s+[^()\n]{0,80}\(([^()\s]+@[^()\s]+)\)\s+not listed/gi,
  ];
  for (const pattern of patterns) {
    for (const match of text.matchAll(pattern)) {
      const at = (match.index ?? 0) + match[0].indexOf(match[1]!);
      if (!isOnOriginalHeaderLine(text, at)) add(match[1], match.index ?? 0);
    }
  }
  found.sort(
    (left, right) =>
      (left.at < 0 ? Number.MAX_SAFE_INTEGER : left.at) - (right.at < 0 ? Number.MAX_SAFE_INTEGER : right.at),
  );
  return uniqueAddresses(found.map((item) => item.address));
};

/** The text about each named address: from its first mention to the next address's. */
const segmentsOf = (text: string, addresses: string[]) => {
  const lower = text.toLowerCase();
  const starts = addresses.map((address) => ({ address, at: lower.indexOf(address.toLowerCase()) }));
  const ordered = starts.filter((start) => start.at >= 0).sort((left, right) => left.at - right.at);
  return addresses.map((address) => {
    const index = ordered.findIndex((start) => start.address === address);
    if (index < 0) return text;
    const end = ordered[index + 1]?.at ?? text.length;
    // A segment shorter than a line or two borrows what follows the whole list (Exchange
    // lists the recipients first, then the servers' replies).
    const segment = text.slice(ordered[index]!.at, end);
    return segment.split('\n').filter((line) => line.trim()).length > 1 ? segment : text.slice(ordered[index]!.at);
  });
};

/** The server a report's shape or sender names, when it is one of the known ones. */
const serverOf = (text: string, from: string) => {
  if (/qmail-send program|I'm afraid I wasn't able/i.test(text)) return 'qmail';
  if (/this message was created automatically by mail delivery software|exim/i.test(`${text} ${from}`)) return 'Exim';
  if (/googlemail\.com|gmail/i.test(from)) return 'Gmail';
  if (
    /remote server returned|delivery has failed to these recipients|outlook|microsoft|exchange|RESOLVER\.ADR/i.test(
      `${text} ${from}`,
    )
  ) {
    return 'Exchange';
  }
  if (/domino directory|lotus|notes/i.test(`${text} ${from}`)) return 'Domino';
  if (/mdaemon|session transcript/i.test(`${text} ${from}`)) return 'MDaemon';
  if (/UNDELIVERABLE MAIL|DELAYS IN DELIVERING|courier/i.test(`${text} ${from}`)) return 'Courier';
  if (
    /transcript of session follows|following addresses had permanent fatal errors|sendmail/i.test(`${text} ${from}`)
  ) {
    return 'sendmail';
  }
  if (/yahoo/i.test(`${text} ${from}`)) return 'Yahoo';
  if (/postfix|this is the mail system at host/i.test(text)) return 'Postfix';
  return null;
};

/**
 * A notice that says its message was delivered (or relayed, Gmail's `(Relay)`) and says
 * nothing of a failure: no failure reply, no status of a failure, no words of one.
 */
const SUCCESS_WORDS =
  /(\((success|relay|delivered)\)|delivery to the following recipients? (was|were|has been) (successful|complete)|(was|were|has been) (successfully )?delivered to|successfully delivered|delivered successfully|successful mail delivery|erfolgreich zugestellt|zugestellt an|a été remis)/i;
const FAILURE_WORDS =
  /(fail|undeliver|not (be(en)? )?delivered|could not|couldn.t|unable|reject|refused|error|bounced|returned|nicht zugestellt|unzustellbar|fehlgeschlagen|non remis)/i;

const isSuccessNotice = (subject: string, human: string) => {
  const words = `${subject}\n${human}`;
  return (
    SUCCESS_WORDS.test(words) &&
    !FAILURE_WORDS.test(words) &&
    replyOf(human) === null &&
    enhancedStatusOf(human) === null &&
    reasonOf(words, null) === 'other'
  );
};

/** A reply or forward by a person (or their mail program): `Re:`, `AW:`, `Fwd:`, `Automatic reply:`. */
const PERSONAL_SUBJECT =
  /^\s*(re|aw|sv|vs|antw|wg|fw|fwd|tr|rif|automatic reply|automatische antwort|auto(matic)?[ -]?(reply|response|antwort)|r[ée]ponse automatique|respuesta autom[áa]tica|out of (the )?office)\s*:/i;

/**
 * A message a person (or their mail program answering for them) wrote: a reply, a forward,
 * an automatic reply, from an address that is not a mail system's. Its words may say "was not
 * delivered" about anything; only a mail system's report is a bounce.
 */
const isPersonal = (root: TMimePart, subject: string, from: string) =>
  from !== '' && !BOUNCE_SENDERS.test(from) && (PERSONAL_SUBJECT.test(subject) || isAutoReply(root, subject));

const fromText = (root: TMimePart, human: string, subject: string): TNamedOutcome[] => {
  const failedHeader = headerOf(root, 'x-failed-recipients');
  const addresses = namedAddressesOf(human, failedHeader);
  const isDelayed = isDelayNotice(`${subject}\n${human.slice(0, 600)}`);
  if (addresses.length === 0) {
    return [
      {
        address: null,
        ...classify({ words: `${human}\n${subject}`, isDelayed }),
        diagnostic: clip(humanLine(human) || human.slice(0, 300)),
      },
    ];
  }
  const segments = segmentsOf(human, addresses);
  return addresses.map((address, index) => {
    const segment = segments[index]!;
    // The receiving server's reply about this recipient says why, when there is one: the
    // rest of its segment is the reporter's boilerplate or a quote of the original (a
    // transcript's `*  Subject:` line), whose words are nobody's reason.
    const reply = replyOf(segment) ? humanLine(segment) : '';
    const classified = classify({
      words: `${reply || segment}\n${subject}`,
      isDelayed: isDelayed && !hasGivenUp(segment),
    });
    return {
      address,
      ...classified,
      diagnostic: clip(reply || humanLine(segment) || humanLine(human) || segment.slice(0, 300)),
    };
  });
};

// --- what is not a bounce ---

const isAutoReply = (root: TMimePart, subject: string) => {
  const header = (name: string) => headerOf(root, name).toLowerCase();
  return (
    /^auto-(replied|generated|notified)/.test(header('auto-submitted')) ||
    header('x-autoreply') !== '' ||
    header('x-autorespond') !== '' ||
    (header('x-auto-response-suppress') !== '' && /auto|office|away/i.test(subject)) ||
    /auto_reply|auto-reply/.test(header('precedence')) ||
    header('x-apple-action') === 'vacation' ||
    /^(auto(matic)?[ -]?(reply|response|antwort)|automatische antwort|autoreply|out of (the )?office|abwesenheit|absence|r[ée]ponse automatique|away from|on vacation|vacation|i am away|respuesta autom[áa]tica|risposta automatica|автоответ|自动回复)/i.test(
      subject.replace(/^(re|aw|fw|fwd):\s*/i, ''),
    )
  );
};

/**
 * Challenge/response systems ask the sender to prove they are a person before the message
 * is delivered; some dress the request as a delivery report (issue 27 §6). It is not a
 * bounce: the address is fine, and suppressing it would lose a real subscriber.
 */
const CHALLENGE_WORDS =
  /((confirm|verify|prove) (that )?(you are|you're) (a )?(human|real|person|not a robot)|(confirm|verify) your (message|e-?mail|address|identity)|sender (verification|authentication) (request|required)|(challenge|verification)[ /-]response|click (on )?the (link|button) below to (confirm|verify|deliver|release|have your)|approved senders? list|awaiting (your )?(verification|confirmation)|spam ?arrest|boxbe|please (confirm|verify) (that )?you sent)/i;

const isChallenge = (root: TMimePart, subject: string, human: string) =>
  CHALLENGE_WORDS.test(`${subject}\n${human}`) ||
  headerOf(root, 'x-challenge') !== '' ||
  /challenge/i.test(headerOf(root, 'auto-submitted'));

// --- complaints ---

/** ARF (RFC 5965): the feedback-report part's fields. */
const fromFeedback = (
  feedback: TMimePart | undefined,
  original: TOriginalRefs,
  reportId: string | null,
  human: string,
): TReport => {
  const fields = new Map(
    dsnFieldsOf(feedback ? textOf(feedback) : '').map(([name, value]) => [name, decodeHeaderValue(value)]),
  );
  const type = (fields.get('feedback-type') ?? 'abuse').toLowerCase().trim();
  const where = [
    fields.get('reported-domain') ? `domain ${fields.get('reported-domain')}` : null,
    fields.get('source-ip') ? `from ${fields.get('source-ip')}` : null,
    fields.get('user-agent') ? `by ${fields.get('user-agent')}` : null,
  ]
    .filter(Boolean)
    .join(', ');
  if (type === 'auth-failure' || type === 'dmarc') {
    return {
      kind: 'auth-failure',
      detail: clip(
        `${fields.get('auth-failure') ?? 'authentication'} failure report${where ? ` (${where})` : ''}: ${fields.get('authentication-results') ?? human.slice(0, 200)}`,
      ),
      reportId,
    };
  }
  if (type === 'not-spam') return { kind: 'none', why: 'a not-spam report' };
  if (type === 'virus') return { kind: 'none', why: 'a virus report (about the message, not a complaint)' };
  return {
    kind: 'complaint',
    feedbackType: type,
    originalRecipients: uniqueAddresses(
      [fields.get('original-rcpt-to'), fields.get('removal-recipient')].flatMap((value) => addressOf(value) ?? []),
    ),
    detail: clip(`Feedback-Type: ${type}${where ? ` (${where})` : ''}`),
    description: `ARF complaint (RFC 5965)${fields.get('user-agent') ? ` from ${fields.get('user-agent')}` : ''}`,
    reportId,
    original: {
      ...original,
      envelopeSenders: uniqueAddresses([
        ...original.envelopeSenders,
        ...(addressOf(fields.get('original-mail-from')) ? [addressOf(fields.get('original-mail-from'))!] : []),
      ]),
    },
  };
};

/** Microsoft's JMRP: the complained message attached to a plain multipart/mixed from staff@hotmail.com. */
const isJmrp = (root: TMimePart, subject: string, from: string) =>
  root.type === 'multipart/mixed' &&
  partsOf(root).some(isAttachedMessage) &&
  ((/staff@hotmail\.com|@(outlook|microsoft)\.com/i.test(from) && /complaint/i.test(subject)) ||
    partsOf(root, { intoMessages: true }).some((part) => part.headers.has('x-hmxmroriginalrecipient')));

// --- the report ---

/** The report's own id for recording it once: its Message-ID, else a digest of it. */
const reportIdOf = (root: TMimePart, raw: Buffer) =>
  headerOf(root, 'message-id').trim() || `sha256:${createHash('sha256').update(raw).digest('hex').slice(0, 32)}`;

export const parseReport = (raw: Buffer | string): TReport => {
  const bytes = typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw;
  const root = parseMime(bytes);
  const subject = headerOf(root, 'subject');
  const from = headerOf(root, 'from');
  const reportId = reportIdOf(root, bytes);
  const parts = partsOf(root);
  const humanTexts = humanTextsOf(root);
  const human = humanTexts.map(beforeOriginal).join('\n');
  const statusParts = parts.filter((part) => DSN_TYPES.has(part.type));
  const perMessageSenders = statusParts.flatMap((part) => {
    const { perMessage } = dsnGroupsOf(textOf(part));
    return [perMessage.get('x-postfix-sender'), perMessage.get('x-original-envelope-from')].flatMap(
      (value) => value ?? [],
    );
  });
  const original = refsOf(originalHeaderBlocks(root, humanTexts), perMessageSenders);
  const reportType = root.params['report-type']?.toLowerCase();

  const feedback = parts.find((part) => part.type === 'message/feedback-report');
  if (feedback || reportType === 'feedback-report') return fromFeedback(feedback, original, reportId, human);
  if (isJmrp(root, subject, from)) {
    const recipients = partsOf(root, { intoMessages: true }).flatMap(
      (part) => part.headers.get('x-hmxmroriginalrecipient') ?? [],
    );
    return {
      kind: 'complaint',
      feedbackType: 'abuse',
      originalRecipients: uniqueAddresses(recipients.flatMap((value) => addressOf(value) ?? [])),
      detail: clip(`Junk complaint: ${subject}`),
      description: 'Microsoft JMRP complaint',
      reportId,
      original,
    };
  }
  if (
    reportType === 'disposition-notification' ||
    parts.some((part) => part.type === 'message/disposition-notification')
  ) {
    return { kind: 'none', why: 'a read receipt' };
  }
  if (isChallenge(root, subject, human)) return { kind: 'none', why: 'a challenge/response notice' };

  // An RFC 3464 report: a delivery-status part, or its fields pasted into the text.
  const inlineReport = /^Final-Recipient:/im.test(human) && /^Action:/im.test(human) ? [human] : [];
  const statusTexts = [...statusParts.map(textOf), ...(statusParts.length === 0 ? inlineReport : [])];
  if (statusTexts.length > 0) {
    const outcomes = fromDsn(statusTexts, human, subject);
    if (outcomes === 'success') return { kind: 'none', why: 'a success notice (delivered or relayed)' };
    if (outcomes.length > 0) {
      const mta = statusTexts.map((text) => dsnGroupsOf(text).perMessage.get('reporting-mta')).find(Boolean);
      return {
        kind: 'bounce',
        outcomes,
        description: clip(
          `${serverOf(human, from) ?? 'Delivery'} report (RFC 3464)${mta ? ` from ${mta.replace(/^dns;\s*/i, '')}` : ''}`,
        ),
        reportId,
        original,
      };
    }
  }

  // A text bounce: its shape (the failed-recipients header, a known server's words, a
  // bounce's subject), or a mail system's notice that names a failure or its reason (MDaemon's
  // "Warning: No Such User Here"); never a person's reply, nor a notice of a delivery.
  const isFromMailSystem = BOUNCE_SENDERS.test(from) || from === '';
  const isBounceShaped =
    headerOf(root, 'x-failed-recipients') !== '' ||
    (!isPersonal(root, subject, from) &&
      !isSuccessNotice(subject, human) &&
      (BOUNCE_BODIES.test(human) ||
        (BOUNCE_SUBJECTS.test(subject) && (isFromMailSystem || replyCodeOf(human) !== null)) ||
        (isFromMailSystem &&
          (/(could not|couldn't|unable to) (be )?deliver|undeliver|delivery (failed|failure)/i.test(human) ||
            reasonOf(subject, null) !== 'other'))));
  if (isBounceShaped) {
    return {
      kind: 'bounce',
      outcomes: fromText(root, human, subject),
      description: `${serverOf(human, from) ?? 'Text'} bounce (no delivery report)`,
      reportId,
      original,
    };
  }
  if (isAutoReply(root, subject)) return { kind: 'none', why: 'an automatic reply' };
  if (isSuccessNotice(subject, human)) return { kind: 'none', why: 'a success notice (delivered or relayed)' };
  return { kind: 'none', why: 'no failure in it' };
};

/** The reason's words for the suppression screen. */
export const reasonLabel = (reason: TBounceReason) => REASON_LABELS[reason];
