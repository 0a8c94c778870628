/**
 * What a receiving server's words mean for one recipient: the reason, and whether the
 * failure is hard (the address itself is at fault: suppress it), soft (this message failed
 * for good, the address may be fine) or a delay (still being retried: not a failure at all).
 *
 * After sisimai's reading of bounces (reason tables per cause, `IsHardBounce`): an address
 * that does not exist, a domain that does not, a mailbox closed for good are hard; a full
 * mailbox, a message too big, a refusal for content, reputation or authentication (the
 * sender's problem, not the recipient's), and a temporary failure given up are soft. The
 * rules that decide, in order:
 *
 * 1. `Action: delayed`, or a delay notice's words without a give-up: a delay.
 * 2. A 4.x.x status (or a 4xx reply) is never hard: a final one is soft (R32, issue 27 §6–7).
 * 3. A 5.x.x status (or 5xx reply) is hard unless the reason is one of the soft ones. The
 *    reason is the status's when the status names the address (5.1.1, 5.1.2, …: issue 45
 *    §6), else the words' (the server's reply about the recipient, `bounce-parser.ts`).
 * 4. No code at all: hard only when the words say the address or its domain does not exist
 *    or is closed (Domino's "not listed in Domino Directory", MDaemon's "User unknown!");
 *    anything else unclear is soft, never suppressed on a guess.
 */

export type TBounceOutcome = 'hard' | 'soft' | 'delayed';

export type TBounceReason =
  | 'user-unknown'
  | 'host-unknown'
  | 'mailbox-disabled'
  | 'mailbox-full'
  | 'message-too-big'
  | 'blocked'
  | 'authentication'
  | 'expired'
  | 'other';

/** The reasons that make a permanent failure hard: the address itself is at fault. */
const HARD_REASONS = new Set<TBounceReason>(['user-unknown', 'host-unknown', 'mailbox-disabled']);

/** Words for each reason, checked in this order (the first that matches wins). */
const REASON_WORDS: [TBounceReason, RegExp][] = [
  // A domain that does not exist first: its words ("does not exist") would read as a user's.
  [
    'host-unknown',
    /(host (or domain name )?not found|domain (name )?not found|no such domain|unknown (host|domain)|host unknown|couldn.t find any host|name service error|nxdomain|all (relevant mx records point to non-existent hosts|host address lookups failed permanently)|null mx|does not accept mail|domain does not exist)/i,
  ],
  [
    'user-unknown',
    new RegExp(
      [
        'user ?unknown',
        'unknown (user|recipient|mailbox|local ?part|e-?mail address|address)',
        'no such (user|mailbox|recipient|address|person|account)',
        'no mailbox (here )?by that name',
        '(mailbox|recipient|user|address|account|e-?mail account)( that you tried to reach)?( \\S+)? (does not|doesn.t|did not) exist',
        'not exist',
        '(recipient|user|mailbox|address) (not found|unknown|invalid|not known)',
        'invalid (recipient|mailbox|user|address)',
        'recipient address rejected: (user unknown|unknown user|invalid user|access denied|undeliverable address)',
        'resolver\\.adr\\.recip(ient)?notfound',
        'recipientnotfound',
        'couldn.t be found',
        'not (listed|found) in (the )?(domino directory|public name & address book|name directory|directory)',
        'is not a (valid|known) (user|mailbox|recipient)',
        'this user doesn.t have an? \\S+ account',
        'mailbox (unavailable|not found|not present)',
        'bad destination mailbox address',
        'unrouteable address',
        'utilisateur inconnu',
        'empf(ä|ae)nger unbekannt',
        'benutzer unbekannt',
        'unbekannte[rn]? (empf(ä|ae)nger|benutzer|adresse)',
        '(postfach|benutzer|empf(ä|ae)nger|adresse|konto) (existiert nicht|nicht vorhanden|ist nicht vorhanden|nicht gefunden)',
        'destinatario (inexistente|sconosciuto)',
        'usuario (desconocido|inexistente)',
        'несуществующ|нет такого (пользователя|адреса|ящика)|пользователь не найден|адрес.{0,20}не существует',
        '收件人不存在|用户不存在|不存在的用户|地址不存在',
        'ユーザ(ー)?(が|は)(い|存在し)ません|宛先(が|は)(見つかりません|存在しません)',
      ].join('|'),
      'i',
    ),
  ],
  [
    'mailbox-disabled',
    /(account (is |has been )?(disabled|deactivated|inactive|suspended|closed|expired|locked)|mailbox (is |has been )?(disabled|deactivated|inactive|suspended|closed)|no longer (active|valid|in use|available|accepts mail)|address (is )?no longer|user (is )?(inactive|disabled|suspended)|recipient (is )?(inactive|disabled|suspended))/i,
  ],
  [
    'mailbox-full',
    /(mailbox (is )?full|over ?quota|quota exceeded|exceeded (its|the|their) (storage )?(quota|allocation|limit)|disk quota|insufficient (system )?storage|mailbox size limit|quotaexceeded|postfach (ist )?voll|boîte (aux lettres )?pleine|ящик переполнен)/i,
  ],
  [
    'message-too-big',
    /(message (size )?(is )?(too (big|large)|exceeds)|size (exceeds|limit)|exceeds (the )?(maximum|fixed) (message )?size|message length exceeds|databytes limit)/i,
  ],
  [
    'authentication',
    /(\bdmarc\b|\bspf\b|\bdkim\b|unauthenticated|not authenticated|authentication (failed|required|failure)|sender (address )?(policy|verify failed))/i,
  ],
  [
    'blocked',
    /(spam|blocked|block ?list|black ?list|\bblacklisted\b|reputation|rejected (for|due to|by) (policy|content)|policy (violation|rejection|reasons)|content (rejected|filter)|message (was )?(rejected|refused|not accepted)|too many (messages|connections|recipients)|rate limit|relay(ing)? (access )?denied|not permitted|poor reputation|bulk mail|virus)/i,
  ],
  [
    'expired',
    /(retry timeout exceeded|retry time (not reached|exceeded)|gave up|giving up|given up|too long (in|on) (the )?queue|been in the queue too long|could not be delivered (within|for) \d+|delivery (time )?expired|message expired|expired after|no further attempts|will not (be )?retr(y|ied))/i,
  ],
];

/** The reason an enhanced status code names, when the words name none (RFC 3463). */
const reasonOfStatus = (status: string | null): TBounceReason => {
  if (!status) return 'other';
  const [, subject, detail] = status.split('.');
  const code = `${subject}.${detail}`;
  if (['1.1', '1.0', '1.3', '1.6', '1.10'].includes(code)) return 'user-unknown';
  if (['1.2', '4.4'].includes(code)) return 'host-unknown';
  if (code === '2.1') return 'mailbox-disabled';
  if (code === '2.2') return 'mailbox-full';
  if (['2.3', '3.4'].includes(code)) return 'message-too-big';
  if (['7.23', '7.24', '7.25', '7.26', '7.27', '7.7', '7.8', '7.5'].includes(code)) return 'authentication';
  if (code === '4.7') return 'expired';
  if (subject === '7') return 'blocked';
  return 'other';
};

/**
 * Enhanced statuses that say what is wrong with the address itself (RFC 3463: X.1.1 bad
 * mailbox, X.1.2 bad system, X.1.3 bad syntax, X.1.6 moved, X.1.10 null MX). They decide over
 * the words beside them: a server that answers `550 5.1.1 … (spam protection on)` says the
 * mailbox does not exist, whatever else its sentence mentions.
 */
const ADDRESS_STATUSES = new Set(['1.1', '1.2', '1.3', '1.6', '1.10']);

/** The reason an address status gives, else the words (first) or the status code (after). */
export const reasonOf = (words: string, status: string | null): TBounceReason => {
  if (status && ADDRESS_STATUSES.has(status.split('.').slice(1).join('.'))) return reasonOfStatus(status);
  for (const [reason, pattern] of REASON_WORDS) if (pattern.test(words)) return reason;
  return reasonOfStatus(status);
};

/**
 * The first enhanced status code of a failure (RFC 3463: class 4 or 5; subject 0–7; detail up
 * to three digits) standing on its own: not part of an IP address, a version number or a
 * timestamp (`10.4.3.2`, `Exim 4.96.1`). A transcript's `250 2.1.0 Ok` is no failure.
 */
export const enhancedStatusOf = (text: string) =>
  /(?<![\d.])([45])\.([0-7])\.(\d{1,3})(?!\.?\d)/.exec(text)?.[0] ?? null;

/**
 * Where each failure reply starts (RFC 5321: three digits at the start of a reply line),
 * never a number inside a line: MDaemon's `10:50:12.423: <-- 550 5.1.1 …` gives 550, not
 * the milliseconds (issue 27 §4). A reply starts at the start of a line (after a
 * transcript's arrow, a quoting `>`, Exchange's `#`), or after the words a server quotes it
 * with: `said:`, `<<<`, `<--`, `returned '`, `reply:`, `]:` (Exim's `host […]: 550`), or the
 * `smtp;` of a Diagnostic-Code. Only 4xx and 5xx replies: a transcript's 220 and 250 are not why.
 */
const REPLY_START =
  /(?:^|\n)[ \t>#]*(?:<--|<<<)?[ \t]*([45]\d\d)(?=[ \t:-]|$)|(?:said:|<<<|<--|returned '|reply:|responded:|\]:|smtp;)[ \t]*([45]\d\d)(?=[ \t-]|$)/gi;

/** The first failure reply code of a text, and where it stands. */
export const replyOf = (text: string) => {
  const match = new RegExp(REPLY_START.source, REPLY_START.flags).exec(text);
  if (!match) return null;
  const code = (match[1] ?? match[2])!;
  return { code, at: match.index + match[0].lastIndexOf(code) };
};

export const replyCodeOf = (text: string) => replyOf(text)?.code ?? null;

/** Words that say a notice is about a delay, and words that say the server has given up. */
const DELAY_WORDS =
  /(n't been delivered yet|\bdeferred\b|still undelivered|delayed|\bdelay\b|still being retried|will (continue to )?(retry|try)|not (yet )?been delivered|has not been delivered yet|delivery attempts will continue|could not send message for (the )?past|delays in delivering|still trying|temporarily (deferred|unable)|zurückgestellt|verzögert|retardée)/i;
const GIVEN_UP_WORDS =
  /(gave up|giving up|given up|retry timeout exceeded|no further attempts|will not (be )?retr|could not be delivered (within|for) \d+|permanent(ly)? (error|failure|fatal)|too long in the queue|been in the queue too long|message expired|delivery (time )?expired|has been removed from the mail queue)/i;

export const isDelayNotice = (words: string) => DELAY_WORDS.test(words) && !GIVEN_UP_WORDS.test(words);
export const hasDelayWords = (words: string) => DELAY_WORDS.test(words);
export const hasGivenUp = (words: string) => GIVEN_UP_WORDS.test(words);

export type TClassified = { outcome: TBounceOutcome; reason: TBounceReason; status: string | null };

/**
 * One recipient's outcome from what the report says about it: the DSN's Action (when it has
 * one), its Status, and the words (the Diagnostic-Code or the lines of a text bounce about
 * that recipient, with the subject for a notice's kind).
 */
export const classify = ({
  action,
  status,
  words,
  isDelayed = false,
}: {
  action?: string | null;
  status?: string | null;
  words: string;
  /** The notice as a whole says it is about a delay (its subject or preface). */
  isDelayed?: boolean;
}): TClassified => {
  const enhanced = status ?? enhancedStatusOf(words);
  const reply = replyCodeOf(words);
  const codeClass = enhanced?.[0] ?? reply?.[0] ?? null;
  const reason = reasonOf(words, enhanced);
  const found = (outcome: TBounceOutcome): TClassified => ({ outcome, reason, status: enhanced });
  if (action === 'delayed') return found('delayed');
  if (!action && codeClass !== '5' && (isDelayed || isDelayNotice(words)) && !hasGivenUp(words)) {
    return found('delayed');
  }
  if (codeClass === '4' || codeClass === '2') return found('soft');
  if (codeClass === '5') return found(HARD_REASONS.has(reason) || reason === 'other' ? 'hard' : 'soft');
  return found(HARD_REASONS.has(reason) ? 'hard' : 'soft');
};

/** Words for people: the reason as the suppression screen shows it. */
export const REASON_LABELS: Record<TBounceReason, string> = {
  'user-unknown': 'no such mailbox',
  'host-unknown': 'no such domain',
  'mailbox-disabled': 'mailbox closed',
  'mailbox-full': 'mailbox full',
  'message-too-big': 'message too big',
  blocked: 'refused by policy or as spam',
  authentication: 'sender authentication (SPF, DKIM, DMARC)',
  expired: 'gave up after retrying',
  other: 'delivery failed',
};
