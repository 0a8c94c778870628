import { type ParsedMail, simpleParser } from 'mailparser';

/**
 * Reads a bounce message (a DSN) the way receiving servers write them: RFC 3464
 * `multipart/report; report-type=delivery-status` first, then the common non-standard
 * forms (qmail's "Hi. This is the qmail-send program", Exchange's "Undeliverable:" with
 * "Remote Server returned '550 …'", Postfix and Exim without a report part), and tells
 * auto-replies (out of office) apart, which are not bounces.
 */

export type TBounceKind = 'permanent' | 'temporary';

export type TBounce =
  | { kind: 'not-a-bounce'; why: string }
  | {
      kind: TBounceKind;
      /** The failed recipient as the report names it, when it does. */
      recipient: string | null;
      /** The enhanced status code (5.1.1), when there is one. */
      status: string | null;
      /** The receiving server's own words: the Diagnostic-Code, or the line that says why. */
      diagnostic: string;
      /** Where the words came from, for the bounce review. */
      description: string;
      messageId: string | null;
    };

const TEXT_LIMIT = 1000;

/** RFC 3464 fields of one block ("Name: value", continuation lines folded in). */
const fieldsOf = (block: string) => {
  const fields = new Map<string, string>();
  let last: string | null = null;
  for (const line of block.split(/\r?\n/)) {
    if (/^\s/.test(line) && last) {
      fields.set(last, `${fields.get(last)} ${line.trim()}`);
      continue;
    }
    const match = /^([A-Za-z-]+):\s*(.*)$/.exec(line);
    if (match) {
      last = match[1]!.toLowerCase();
      fields.set(last, match[2]!.trim());
    }
  }
  return fields;
};

/** `rfc822; someone@example.com` → the address. */
const addressOf = (value: string | undefined) =>
  value
    ?.replace(/^[^;]*;\s*/, '')
    .replace(/^<|>$/g, '')
    .trim() || null;

const kindOfStatus = (status: string | null, action: string | undefined): TBounceKind | null => {
  if (action === 'delayed') return 'temporary';
  if (status?.startsWith('5')) return 'permanent';
  if (status?.startsWith('4')) return 'temporary';
  if (action === 'failed') return 'permanent';
  return null;
};

const clip = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, TEXT_LIMIT);

const isAutoReply = (mail: ParsedMail) => {
  const header = (name: string) => String(mail.headers.get(name) ?? '').toLowerCase();
  const subject = mail.subject ?? '';
  return (
    /^auto-(replied|generated)/.test(header('auto-submitted')) ||
    header('x-autoreply') === 'yes' ||
    header('x-autorespond') !== '' ||
    /auto_reply|auto-reply/.test(header('precedence')) ||
    /^(auto(matic)?[ -]?reply|out of (the )?office|abwesenheit|absence|r[ée]ponse automatique|away from)/i.test(subject)
  );
};

/**
 * The delivery-status part's text. mailparser folds a `message/delivery-status` part into
 * the message's text, so it is read from the raw message (the part is plain 7-bit text by
 * the RFC); a report whose recipient fields are in the text is read from there.
 */
const reportTextOf = (raw: string, mail: ParsedMail) => {
  const part =
    /content-type:\s*(?:message|text)\/(?:global-)?delivery-status[^\n]*\n(?:[ \t][^\n]*\n|[a-z-]+:[^\n]*\n)*\r?\n([\s\S]*?)(?:\r?\n--[^\r\n]+|$)/i.exec(
      raw,
    );
  if (part) return part[1]!;
  const text = mail.text ?? '';
  return /^Final-Recipient:/im.test(text) && /^Action:/im.test(text) ? text : null;
};

/** The RFC 3464 report, if the message carries one. */
const fromReport = (raw: string, mail: ParsedMail): TBounce | null => {
  const report = reportTextOf(raw, mail);
  if (!report) return null;
  const blocks = report.split(/\r?\n\s*\r?\n/);
  for (const block of blocks.slice(1).concat(blocks.slice(0, 1))) {
    const fields = fieldsOf(block);
    const action = fields.get('action')?.toLowerCase();
    if (!action || action === 'delivered' || action === 'relayed' || action === 'expanded') continue;
    const status = /\d\.\d{1,3}\.\d{1,3}/.exec(fields.get('status') ?? '')?.[0] ?? null;
    const kind = kindOfStatus(status, action);
    if (!kind) continue;
    const diagnostic = fields.get('diagnostic-code')?.replace(/^[^;]*;\s*/, '') ?? `${action} ${status ?? ''}`;
    return {
      kind,
      recipient: addressOf(fields.get('final-recipient') ?? fields.get('original-recipient')),
      status,
      diagnostic: clip(diagnostic),
      description: `RFC 3464 report: Action ${action}${status ? `, Status ${status}` : ''}${fields.get('remote-mta') ? `, from ${addressOf(fields.get('remote-mta'))}` : ''}`,
      messageId: mail.messageId ?? null,
    };
  }
  // A report that names no failure (delivered, relayed) is a success notice, not a bounce.
  return { kind: 'not-a-bounce', why: 'the delivery report names no failed recipient' } as TBounce;
};

const PERMANENT_WORDS =
  /(user unknown|no such (user|mailbox|recipient)|does not exist|recipient ?not ?found|address rejected|mailbox unavailable|invalid (recipient|mailbox)|account (is )?disabled|undeliverable|permanent(ly)? (error|failure)|could not be delivered)/i;
const TEMPORARY_WORDS =
  /(delayed|delay|will (be )?retr(y|ied)|not yet been delivered|temporar(y|ily)|mailbox (is )?full|over quota|try again later)/i;

/** The non-standard forms: a status or SMTP code and the words around it in the text. */
const fromText = (mail: ParsedMail): TBounce | null => {
  const subject = mail.subject ?? '';
  const text = `${mail.text ?? ''}`;
  const looksLikeBounce =
    /(undeliver|undelivered|delivery (status notification|has failed|failure)|mail delivery (failed|subsystem)|returned mail|failure notice|delivery delayed|warning: message .* delayed)/i.test(
      subject,
    ) ||
    /(qmail-send program|mailer-daemon|postmaster|remote server returned)/i.test(`${mail.from?.text ?? ''} ${text}`);
  if (!looksLikeBounce) return null;
  const status = /\b([245])\.(\d{1,3})\.(\d{1,3})\b/.exec(text)?.[0] ?? null;
  const codeLine =
    /(^|\n)[^\n]*\b[45]\d\d[ -][^\n]*/.exec(text)?.[0] ??
    text.split('\n').find((line) => PERMANENT_WORDS.test(line)) ??
    '';
  const smtpCode = /\b([45])\d\d\b/.exec(codeLine)?.[1];
  const isDelayed = TEMPORARY_WORDS.test(subject) || (/delay/i.test(subject) && !PERMANENT_WORDS.test(subject));
  const kind: TBounceKind =
    isDelayed || status?.startsWith('4') || smtpCode === '4'
      ? 'temporary'
      : status?.startsWith('5') || smtpCode === '5' || PERMANENT_WORDS.test(text)
        ? 'permanent'
        : // A bounce we cannot read with certainty: counted, never suppressed on a guess.
          'temporary';
  const recipient =
    /<([^<>\s@]+@[^<>\s]+)>:/.exec(text)?.[1] ?? /\b([^\s<>"']+@[^\s<>"']+\.[a-z]{2,})\b/i.exec(codeLine)?.[1] ?? null;
  return {
    kind,
    recipient,
    status,
    diagnostic: clip(codeLine || text.slice(0, 300)),
    description: /qmail-send/i.test(text)
      ? 'qmail bounce'
      : /remote server returned/i.test(text)
        ? 'Exchange non-delivery report'
        : 'bounce message without a delivery report',
    messageId: mail.messageId ?? null,
  };
};

export const parseBounce = async (raw: Buffer | string): Promise<TBounce> => {
  const mail = await simpleParser(raw, { skipHtmlToText: false, skipImageLinks: true });
  const report = fromReport(typeof raw === 'string' ? raw : raw.toString('latin1'), mail);
  if (report) return report;
  if (isAutoReply(mail)) return { kind: 'not-a-bounce', why: 'an automatic reply' };
  return fromText(mail) ?? { kind: 'not-a-bounce', why: 'no failure in it' };
};
