import type { TSpamCheck } from '@sendwell/contracts';
import type { ParsedMail } from 'mailparser';
import { readHeaderFields, splitEntity, unfoldedValue } from '../../platform/mime';
import { domainOf, messageIdProblem, organisationOf, readMailbox, withoutComments } from './addresses';
import { check, clip, type TMessageContext } from './check';

/**
 * The header checks, read from the header lines as they arrived (mailparser's reading is
 * only shown beside them): From read strictly, duplicated headers that may appear once,
 * Message-ID, Date, Subject, Reply-To at another organisation, List-Unsubscribe.
 */

/**
 * What a fault costs that Gmail refuses mail for (RFC 5322: an invalid or missing From or
 * Message-ID, a header that may appear once appearing twice): 550 5.7.1, never delivered,
 * though no filter calls the message spam. Enough to leave a clean message "Needs work".
 */
const REFUSED_BY_GMAIL = 4;
/** A Date this far ahead of the arrival is not clock drift (rspamd and SpamAssassin both count it). */
const FUTURE_SLACK_MS = 15 * 60_000;
const PAST_SLACK_MS = 24 * 60 * 60_000;

/** The headers as they arrived (everything before the first blank line). */
export const headersOf = (raw: Buffer) => splitEntity(raw.toString('utf8')).head;

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

const describeAge = (milliseconds: number) => {
  const minutes = Math.round(Math.abs(milliseconds) / 60_000);
  if (minutes < 120) return `${minutes} minutes`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} hours`;
  return `${Math.round(hours / 24)} days`;
};

type TValuesOf = (name: string) => string[];

/** The findings about one header: its category, id and title written once. */
const findingAbout =
  (id: string, title: string) =>
  (status: TSpamCheck['status'], penalty: number, detail: string, advice: string | null = null) =>
    check('headers', id, title, status, penalty, detail, advice);

const fromFinding = findingAbout('from', 'From');
const duplicatesFinding = findingAbout('duplicate-headers', 'Duplicate headers');
const messageIdFinding = findingAbout('message-id', 'Message-ID');
const dateFinding = findingAbout('date', 'Date');
const subjectFinding = findingAbout('subject', 'Subject');
const replyToFinding = findingAbout('reply-to', 'Reply-To');
const listUnsubscribeFinding = findingAbout('list-unsubscribe', 'List-Unsubscribe');

/** From read strictly: one mailbox, a valid address (shown as written). */
const fromCheck = (froms: string[], from: ReturnType<typeof readMailbox> | null, mail: ParsedMail) => {
  if (froms.length === 0)
    return fromFinding(
      'fail',
      REFUSED_BY_GMAIL,
      'The message has no From header; Gmail refuses such mail.',
      'Send from exactly one address.',
    );
  if (!from || from.problem !== null)
    return fromFinding(
      'fail',
      REFUSED_BY_GMAIL,
      froms.length > 1
        ? `The message has ${froms.length} From headers.`
        : `From: ${clip(froms[0]!)} is not a valid address: ${from!.problem}. Receivers read it differently (one shows it as ${JSON.stringify(clip(mail.from?.text ?? '', 80))}), and Gmail refuses mail whose From breaks RFC 5322.`,
      'Write the sender as Name <local@domain>, the address without spaces, the name in quotes if it holds punctuation.',
    );
  return fromFinding('pass', 0, `From: ${mail.from?.text || froms[0]}`);
};

/** Headers a message has at most once, written more than once. */
const duplicatesCheck = (valuesOf: TValuesOf) => {
  const duplicated = SINGLETON_HEADERS.filter((name) => valuesOf(name).length > 1);
  if (duplicated.length === 0) return [];
  return [
    duplicatesFinding(
      'fail',
      REFUSED_BY_GMAIL,
      `${duplicated.map((name) => `${HEADER_NAMES[name]} (${valuesOf(name).length} times)`).join(', ')}: a message has each of these at most once. Receivers pick different ones, and Gmail refuses such mail.`,
      'Set each of these headers once; look for a template or a library that adds its own.',
    ),
  ];
};

const messageIdCheck = (messageIds: string[]) => {
  if (messageIds.length === 0)
    return messageIdFinding(
      'fail',
      REFUSED_BY_GMAIL,
      'The message has no Message-ID header: Gmail refuses such mail, and filters read it as hand-made.',
      'Your sending service should add one (<something-unique@your-domain>).',
    );
  const problem = messageIdProblem(messageIds[0]!);
  if (problem)
    return messageIdFinding(
      'fail',
      REFUSED_BY_GMAIL,
      `Message-ID: ${clip(messageIds[0]!)} is not valid: ${problem}. Gmail refuses mail without a valid Message-ID.`,
      'A Message-ID is <something-unique@your-domain>; your sending service should write it.',
    );
  return messageIdFinding('pass', 0, `Message-ID: ${clip(messageIds[0]!)}`);
};

/** Date: there, a date as mail writes it, not ahead of the arrival nor a day behind it. */
const dateCheck = (dates: string[], now: Date) => {
  if (dates.length === 0)
    return dateFinding(
      'fail',
      1.5,
      'The message has no Date header, which every message must have.',
      'Your sending service should add one.',
    );
  const date = readDate(dates[0]!);
  if (!date)
    return dateFinding(
      'fail',
      1.5,
      `Date: ${clip(dates[0]!)} is not a date as mail writes it (e.g. "Tue, 4 Nov 2025 09:30:00 +0000").`,
      'Let your sending service write the Date header.',
    );
  const ahead = date.getTime() - now.getTime();
  if (ahead > FUTURE_SLACK_MS)
    return dateFinding(
      'fail',
      2,
      `Date: ${clip(dates[0]!)} is ${describeAge(ahead)} ahead of the time the message was checked: spam dates itself ahead to stay at the top of the inbox.`,
      "Check the sending server's clock and time zone.",
    );
  if (-ahead > PAST_SLACK_MS)
    return dateFinding(
      'warn',
      0.5,
      `Date: ${clip(dates[0]!)} is ${describeAge(ahead)} before the time the message was checked.`,
      "Check the sending server's clock, or send the message again rather than a stored copy.",
    );
  return dateFinding('pass', 0, `Date: ${date.toUTCString()}`);
};

const subjectCheck = (subject: string) => {
  const letters = subject.replace(/[^\p{L}]/gu, '');
  if (!subject.trim())
    return subjectFinding(
      'fail',
      0.5,
      'The message has no subject.',
      'Write a subject that says what the email is about.',
    );
  if (letters.length >= 6 && letters === letters.toUpperCase() && letters !== letters.toLowerCase())
    return subjectFinding(
      'warn',
      0.3,
      `The subject is in capitals: "${clip(subject)}".`,
      'Write the subject in sentence case.',
    );
  return subjectFinding('pass', 0, `Subject: ${clip(subject, 200)}`);
};

/** Replies taken at another organisation than the sender's: a phishing sign. */
const replyToCheck = (fromAddress: string | null, mail: ParsedMail) => {
  const replyTos = (mail.replyTo?.value ?? []).map((item) => item.address).filter((item): item is string => !!item);
  const elsewhere = fromAddress
    ? replyTos.filter((address) => organisationOf(domainOf(address)) !== organisationOf(domainOf(fromAddress)))
    : [];
  if (elsewhere.length === 0) return [];
  return [
    replyToFinding(
      'warn',
      0.5,
      `Replies go to ${elsewhere.join(', ')}, at another domain than the From address (${domainOf(fromAddress!)}): filters read it as a phishing sign.`,
      `Take replies at an address of ${organisationOf(domainOf(fromAddress!))}, or send from the domain that takes them.`,
    ),
  ];
};

const listUnsubscribeCheck = (valuesOf: TValuesOf) => {
  if (valuesOf('list-unsubscribe').length === 0)
    return listUnsubscribeFinding(
      'warn',
      0.5,
      'No List-Unsubscribe header: mail clients cannot show their unsubscribe button.',
      'Send marketing mail through Sendwell to a list: it adds List-Unsubscribe and one-click unsubscribe. Gmail and Yahoo require them of bulk senders.',
    );
  if (valuesOf('list-unsubscribe-post').length > 0)
    return listUnsubscribeFinding('pass', 0, 'One-click unsubscribe (RFC 8058) is offered.', null);
  return listUnsubscribeFinding(
    'warn',
    0.2,
    'A List-Unsubscribe header without List-Unsubscribe-Post.',
    'Offer one-click unsubscribe: add List-Unsubscribe-Post: List-Unsubscribe=One-Click with an https link.',
  );
};

export const headerChecks = (mail: ParsedMail, raw: Buffer, context: TMessageContext): TSpamCheck[] => {
  const fields = readHeaderFields(headersOf(raw));
  const valuesOf: TValuesOf = (name) => fields.filter((field) => field.name === name).map(unfoldedValue);
  const froms = valuesOf('from');
  const from = froms.length === 1 ? readMailbox(froms[0]!) : null;
  return [
    fromCheck(froms, from, mail),
    ...duplicatesCheck(valuesOf),
    messageIdCheck(valuesOf('message-id')),
    dateCheck(valuesOf('date'), context.now),
    subjectCheck(mail.subject ?? ''),
    ...replyToCheck(from?.address ?? null, mail),
    listUnsubscribeCheck(valuesOf),
  ];
};
