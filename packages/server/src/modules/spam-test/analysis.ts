import {
  scoreVerdict,
  type TSpamCheck,
  type TSpamEngine,
  type TSpamReport,
  type TSpamScoreBand,
} from '@sendwell/contracts/spam-test/spam-test';
import type { ParsedMail } from 'mailparser';
import { askRspamd, askSpamAssassin, ENGINE_TIMEOUT_MS, isAuthenticationRule } from './engines';
import { check, contentChecks, headerChecks, headersOf, type TMessageContext } from './message-checks';
import { authenticationChecks, blocklistChecks, dmarcCeilingOf, type TResolve } from './receiver-checks';

/**
 * A spam test's analysis of one message as a receiver would see it: authentication (SPF,
 * DKIM, DMARC, ARC through mailauth, and the From domain's alignment), Sendwell's own header
 * and content checks (`message-checks.ts`), DNS blocklists for the sending address, and the
 * content engines that are reachable. Each finding carries the points it takes off the 10
 * and what to do about it; the score is 10 less their sum, with one rule on top: a message
 * a content engine calls spam on its content (or GTUBE) is held in the lowest band, as a
 * receiver running that engine files it as spam whatever else is right with it.
 *
 * `analyseContent` is the part that needs nothing but the message (no DNS, engines or
 * mailbox): the pre-send check runs it on a composed message and gets the same findings,
 * with the same points, as the spam test of that message.
 */

export type { TResolve };
export { headersOf, type TMessageContext };

export type TAnalysisSettings = {
  /** DNS as the receiver sees it (mailauth's resolver signature: `dns.promises.resolve`). */
  resolve: TResolve;
  /** The receiving server's name, in the Authentication-Results header. */
  mta: string;
  dnsbl: string[];
  rspamdUrl: string | null;
  spamd: { host: string; port: number } | null;
  /** Sendwell's click-tracking hosts (PUBLIC_URL's): a tracked link is not a link to another site. */
  trackingHosts: string[];
  /** How long an engine may take before it is reported as timed out. */
  engineTimeoutMs?: number;
  /** Where the message is read and Sendwell's own checks run: in this thread unless given (the services give a CPU thread). */
  readOwnChecks?: TReadOwnChecks;
  /**
   * Where the message's tracked links lead (delivery's stored targets of Sendwell's own
   * click-tracking addresses, for the user whose message it is); without it links are read
   * as written.
   */
  resolveTrackedLinks?: (urls: string[]) => Promise<Record<string, string>>;
};

export type TReadOwnChecks = (raw: Buffer, context: TMessageContext) => Promise<TOwnChecks>;

export type TArrival = {
  raw: Buffer;
  /** The sending server's address and EHLO name, and the envelope, as the mailbox saw them. */
  ip: string;
  helo: string;
  mailFrom: string;
  rcptTo: string;
  /** When the mailbox took it (a Date header is judged against this); now when not given. */
  receivedAt?: Date;
};

/**
 * mailparser reads the MIME tree and decodes; it is not asked to make text from the HTML or
 * HTML from the text (the checks read the parts the sender wrote): html-to-text takes seconds
 * on a hostile 2 MB body and can throw outside the parse's promise, ending the process (R24).
 */
const PARSE_OPTIONS = { skipImageLinks: true, skipHtmlToText: true, skipTextToHtml: true, skipTextLinks: true };

/** Points are kept in tenths: the sum of any findings is exact, so two scores tie only when their penalties do. */
const tenths = (points: number) => Math.round(points * 10);
const penaltyTenths = (checks: TSpamCheck[]) => checks.reduce((sum, item) => sum + tenths(item.penalty), 0);
const fromTenths = (value: number) => value / 10;

/** The most an engine takes off a message it does not call spam. */
const ENGINE_MAX_PENALTY_TENTHS = 30;
/** The highest score of a message an engine calls spam: the top of 'Likely spam'. */
const SPAM_CEILING_TENTHS = 49;

const engineStateText = (engine: TSpamEngine) =>
  engine.status === 'timeout'
    ? `${engine.name} timed out`
    : engine.status === 'unreachable'
      ? `${engine.name} was not reachable`
      : `${engine.name} is off`;

/** What a spam verdict means for a receiver running that engine. */
const verdictWords = (engine: TSpamEngine) =>
  engine.name === 'rspamd'
    ? engine.action === 'reject'
      ? 'rspamd would reject it'
      : 'rspamd would file it as spam'
    : `${engine.name} marks it as spam`;

/**
 * Engine rules that name a fault one of Sendwell's own header or content findings names too:
 * counted by that finding when it took points (`countedOnce`).
 */
const SAME_FAULT_RULES: Record<string, RegExp> = {
  date: /^(?:DATE_IN_(?:FUTURE|PAST)|MISSING_DATE|INVALID_DATE)/,
  'message-id': /^(?:MISSING_MID|INVALID_MSGID|MID_)/,
  from: /^(?:FROM_INVALID|MISSING_FROM|MULTIPLE_FROM)/,
  'duplicate-headers': /^MULTIPLE_UNIQUE_HEADERS$/,
  subject: /^(?:SUBJ_ALL_CAPS|MISSING_SUBJECT|EMPTY_SUBJECT)$/,
  parts: /^MIME_HTML_ONLY$/,
  encoding: /^MIME_BASE64_TEXT/,
  'image-ratio': /^HTML_IMAGE_(?:ONLY|RATIO)_/,
  shorteners: /SHORTNER|SHORTENER/,
  'ip-links': /^(?:HTTP_TO_IP|NORMAL_HTTP_TO_IP|NUMERIC_HTTP_ADDR)$/,
  'link-text': /^PHISHING$/,
};

/**
 * Each fault counts once, in this one rule (issue 32 §2, issue 45 §5): a fault one of
 * Sendwell's findings judges is counted by that finding, at its points, and by nothing else.
 * An engine's rules for it are left out of everything the engine's judgement takes: whether
 * the engine calls the content spam, its share of points, and the rules its finding names.
 * Its SPF, DKIM, DMARC and ARC rules always (the authentication findings judge those for every
 * message, from the receiver's side, and say what to do); a header or content fault's rules
 * when that finding took points (a Date in the future is the Date finding's, not also the
 * engine's "invalid date"). Answers whether a rule of an engine is counted already.
 */
const countedOnce = (checks: TSpamCheck[]) => {
  const counted = Object.entries(SAME_FAULT_RULES)
    .filter(([id]) => checks.some((item) => item.id === id && item.penalty > 0))
    .map(([, rule]) => rule);
  return (name: string) => isAuthenticationRule(name) || counted.some((rule) => rule.test(name));
};

type TEngineJudgement = {
  engine: TSpamEngine;
  /** The engine's content score less the rules for faults counted already. */
  score: number;
  threshold: number;
  /** Whether that score (or a verdict the engine forced on what is not counted already) calls the message spam. */
  isSpam: boolean;
  /** The counted rules that forced a verdict the engine reached before scoring, if they did. */
  forcedBy: string[];
};

/**
 * One engine's judgement as Sendwell counts it (`countedOnce`): its content score less the
 * rules for faults counted already, against its threshold. A verdict the engine reached before
 * scoring (rspamd's GTUBE, a forced action) is a content verdict unless a counted rule fired
 * with it: an action forced on a DMARC or SPF failure (rspamd's `force_actions`, its DMARC
 * module's `actions`) is the authentication findings' to say, not the content's.
 */
const judgeEngine = (engine: TSpamEngine, isCounted: (name: string) => boolean): TEngineJudgement => {
  const threshold = engine.threshold!;
  const counted = engine.rules.filter((rule) => isCounted(rule.name));
  const forcedBy = engine.isForced ? counted.filter((rule) => rule.score > 0).map((rule) => rule.name) : [];
  if (engine.isForced && forcedBy.length === 0) {
    return { engine, score: engine.contentScore!, threshold, isSpam: true, forcedBy };
  }
  const uncounted = engine.isForced
    ? // A forced reading stands in for the sum; without it, the rules that are not counted.
      engine.rules.filter((rule) => !isCounted(rule.name)).reduce((sum, rule) => sum + rule.score, 0)
    : // The content score is the engine's own (SpamAssassin's total less its authentication rules).
      engine.contentScore! -
      counted.filter((rule) => !isAuthenticationRule(rule.name)).reduce((sum, rule) => sum + rule.score, 0);
  const score = Math.max(0, Math.round(uncounted * 100) / 100);
  return { engine, score, threshold, isSpam: score >= threshold, forcedBy };
};

/** The rules that weigh most in the engines' judgement (counted faults left out), for the finding's advice. */
const ruleWords = (judged: TEngineJudgement[], isCounted: (name: string) => boolean) =>
  judged.flatMap(({ engine }) =>
    engine.rules
      .filter((rule) => rule.score > 0 && !isCounted(rule.name))
      .slice(0, 3)
      .map((rule) => `${rule.description || rule.name} (${engine.name} ${rule.name})`),
  );

/** How one engine's judgement reads in its finding: what it scored, and what was left out as counted above. */
const readingOf = (judgement: TEngineJudgement) => {
  const { engine, score, threshold, forcedBy } = judgement;
  if (forcedBy.length > 0) {
    return `${engine.name} decided before scoring (${engine.action}) with ${forcedBy.join(', ')}, a fault counted above; on the rest ${score} where spam starts at ${threshold}`;
  }
  const leftOut = engine.score !== null && engine.score !== score ? ` (${engine.score} in all)` : '';
  return `${engine.name} ${score} where spam starts at ${threshold}${leftOut}`;
};

/**
 * The engines' judgement of the content, and the score it leaves. `ownTenths` is what the
 * rest of the analysis left of the 10, `counted` its findings. Each engine is judged on what
 * Sendwell does not count already (`countedOnce`, `judgeEngine`); the engines judge the same
 * content, so the harshest reading counts, once:
 * - below its threshold it takes up to 3 points, in proportion;
 * - at or past it (or a verdict the engine forces on the content, as for GTUBE) the message is
 *   spam to a receiver running that engine: the score is held under 5, lower the further past
 *   the threshold, and never above what it would be just under the threshold.
 */
const judgeByEngines = (
  engines: TSpamEngine[],
  ownTenths: number,
  counted: TSpamCheck[],
): { check: TSpamCheck; scoreTenths: number } => {
  const isCounted = countedOnce(counted);
  const judged = engines
    .filter(
      (engine) =>
        engine.status === 'scored' &&
        typeof engine.contentScore === 'number' &&
        engine.threshold !== null &&
        engine.threshold > 0,
    )
    .map((engine) => judgeEngine(engine, isCounted));
  const absent = engines.filter((engine) => engine.status !== 'scored');
  const absentText = absent.length > 0 ? ` ${absent.map(engineStateText).join('; ')}.` : '';
  const hasFailure = absent.some((engine) => engine.status === 'timeout' || engine.status === 'unreachable');
  if (judged.length === 0) {
    return {
      scoreTenths: ownTenths,
      check: check(
        'engines',
        'engines',
        'Content engines',
        hasFailure ? 'warn' : 'info',
        0,
        `No content engine judged this message; the score rests on Sendwell's own checks.${absentText}`,
        hasFailure ? 'Run the test again when the engines answer for their judgement of the content.' : null,
      ),
    };
  }
  const ratioOf = (judgement: TEngineJudgement) => judgement.score / judgement.threshold;
  const reading = judged.map(readingOf).join('; ');
  const leftOut = [
    ...new Set(
      judged.flatMap(({ engine }) =>
        engine.rules.filter((rule) => rule.score > 0 && isCounted(rule.name)).map((rule) => rule.name),
      ),
    ),
  ];
  const leftOutText =
    leftOut.length > 0
      ? ` Left out as faults the findings above count: ${leftOut.slice(0, 8).join(', ')}${leftOut.length > 8 ? ', …' : ''}.`
      : '';
  const spam = judged.filter((judgement) => judgement.isSpam);
  const worst = ruleWords(spam.length > 0 ? spam : judged, isCounted);
  if (spam.length > 0) {
    const ratio = Math.max(1, ...spam.map(ratioOf));
    const held = Math.max(
      0,
      Math.min(ownTenths - ENGINE_MAX_PENALTY_TENTHS, Math.round(((SPAM_CEILING_TENTHS / ratio) * ownTenths) / 100)),
    );
    return {
      scoreTenths: held,
      check: check(
        'engines',
        'engines',
        'Content engines',
        'fail',
        fromTenths(Math.max(0, ownTenths) - held),
        `${spam.map(({ engine }) => verdictWords(engine)).join(', and ')} on what Sendwell does not count above, so a receiver running ${spam.length > 1 ? 'either' : 'it'} files it as spam: the score is held below 5. ${reading}.${leftOutText}${absentText}`,
        worst.length > 0 ? `What the engines count against it: ${worst.join('; ')}.` : null,
      ),
    };
  }
  const penalty = Math.min(
    ENGINE_MAX_PENALTY_TENTHS,
    Math.round(ENGINE_MAX_PENALTY_TENTHS * Math.max(...judged.map(ratioOf))),
  );
  const taken = Math.min(penalty, Math.max(0, ownTenths));
  return {
    scoreTenths: ownTenths - taken,
    check: check(
      'engines',
      'engines',
      'Content engines',
      penalty === 0 ? (hasFailure ? 'warn' : 'pass') : penalty >= 15 ? 'fail' : 'warn',
      fromTenths(taken),
      `${reading}.${leftOutText}${absentText}`,
      penalty > 0 && worst.length > 0 ? `What the engines count against it: ${worst.join('; ')}.` : null,
    ),
  };
};

export type TContentAnalysis = {
  /** 10 less the points of these findings, one decimal. */
  score: number;
  verdict: TSpamScoreBand;
  /** Sendwell's header and content findings, as the spam test reports them. */
  checks: TSpamCheck[];
};

/**
 * The message as mailparser reads it. One it refuses (a header block or a part count past
 * its limits) is read as empty, the checks that read the raw message still run, and the
 * refusal is a finding: a message the spam test cannot read is not scored as a clean one.
 */
const parseMessage = async (raw: Buffer): Promise<{ mail: ParsedMail; unreadable: TSpamCheck | null }> => {
  // Loaded where a message is read, not at start: mailparser and mailauth (with its own HTTP
  // client and certificate parsers) are ~350 of the files a process would otherwise load.
  const { simpleParser } = await import('mailparser');
  try {
    return { mail: await simpleParser(raw, PARSE_OPTIONS), unreadable: null };
  } catch (error) {
    return {
      mail: await simpleParser(Buffer.from('\r\n'), PARSE_OPTIONS),
      unreadable: check(
        'content',
        'structure',
        'Message structure',
        'fail',
        4,
        `The message could not be read as an email (${(error as Error).message}); receivers refuse or mangle such mail.`,
        'Send a message with ordinary headers and a few parts; let a mail library build it.',
      ),
    };
  }
};

/**
 * The findings of a message that could not be read in the time or memory a CPU thread has:
 * scored as unreadable, as a receiver that gives up on it would treat it.
 */
export const unreadableOwnChecks = (reason: string): TOwnChecks => ({
  trackedLinks: [],
  checks: [
    check(
      'content',
      'structure',
      'Message structure',
      'fail',
      4,
      `The message could not be read (${reason}); receivers refuse or mangle such mail.`,
      'Send a smaller, simpler message; let a mail library or the editor build it.',
    ),
  ],
  fromAddress: '',
});

/**
 * What reading a message takes on a CPU thread gives back: Sendwell's own findings, its From
 * address, and the links on Sendwell's tracking hosts (for the caller to look up and read again
 * with `linkTargets`; none once targets were given).
 */
export type TOwnChecks = { checks: TSpamCheck[]; fromAddress: string; trackedLinks: string[] };

/**
 * Reads the message (mailparser) and runs Sendwell's own header and content checks: the
 * part of an analysis that is CPU alone, and 0.1 s or more for a 2 MB message, so it runs on
 * a thread of the CPU pool (`readOwnChecks` in `cpu-tasks.ts`), not on the event loop (R40).
 */
export const readOwnChecks = async (raw: Buffer, context: TMessageContext): Promise<TOwnChecks> => {
  const { mail, unreadable } = await parseMessage(raw);
  const content = contentChecks(mail, raw, context);
  return {
    checks: [...(unreadable ? [unreadable] : []), ...headerChecks(mail, raw, context), ...content.checks],
    fromAddress: mail.from?.value[0]?.address ?? '',
    trackedLinks: content.trackedLinks,
  };
};

/**
 * Sendwell's own checks with the message's tracked links read as where they lead: a message
 * sent with click tracking has every link pointing at Sendwell's redirect, and a shortener or
 * a phishing-like link behind it is what its readers reach. The message is read once, and once
 * more with the targets when some of its links are Sendwell's own tracked links.
 */
const readThroughTracking = async (
  read: TReadOwnChecks,
  raw: Buffer,
  context: TMessageContext,
  resolveTrackedLinks: TAnalysisSettings['resolveTrackedLinks'],
): Promise<TOwnChecks> => {
  const written = await read(raw, context);
  if (!resolveTrackedLinks || written.trackedLinks.length === 0) return written;
  const linkTargets = await resolveTrackedLinks(written.trackedLinks);
  if (Object.keys(linkTargets).length === 0) return written;
  return read(raw, { ...context, linkTargets });
};

const scoreOfTenths = (value: number) => fromTenths(Math.min(100, Math.max(0, value)));

/**
 * Sendwell's own header and content checks of a raw message, with nothing else: no DNS,
 * no engine, no mailbox, no database. The spam test's report holds exactly these findings
 * with these points beside its authentication, blocklist and engine findings. `read` is
 * where the message is read (a CPU thread, for the services).
 */
export const analyseContent = async (
  raw: Buffer,
  context: TMessageContext,
  read: TReadOwnChecks = readOwnChecks,
): Promise<TContentAnalysis> => {
  const { checks } = await read(raw, context);
  const score = scoreOfTenths(100 - penaltyTenths(checks));
  return { score, verdict: scoreVerdict(score), checks };
};

export const analyseMessage = async (arrival: TArrival, settings: TAnalysisSettings): Promise<TSpamReport> => {
  const own = await readThroughTracking(
    settings.readOwnChecks ?? readOwnChecks,
    arrival.raw,
    { now: arrival.receivedAt ?? new Date(), trackingHosts: settings.trackingHosts },
    settings.resolveTrackedLinks,
  );
  const { fromAddress } = own;
  const fromDomain = fromAddress ? fromAddress.slice(fromAddress.lastIndexOf('@') + 1).toLowerCase() : '';
  const timeoutMs = settings.engineTimeoutMs ?? ENGINE_TIMEOUT_MS;
  const { authenticate } = await import('mailauth');
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
    askRspamd(
      settings.rspamdUrl,
      arrival.raw,
      { ip: arrival.ip, helo: arrival.helo, from: arrival.mailFrom, rcpt: arrival.rcptTo },
      timeoutMs,
    ),
    askSpamAssassin(settings.spamd, arrival.raw, timeoutMs),
  ]);
  const engines = [rspamd, spamAssassin];
  const checks = [...authenticationChecks(auth, fromDomain, arrival.ip), ...own.checks, ...blocklists];
  let ownTenths = 100 - penaltyTenths(checks);
  const ceiling = dmarcCeilingOf(auth);
  const dmarc = checks.find((item) => item.id === 'dmarc');
  if (ceiling !== null && dmarc && ownTenths > ceiling) {
    // The policy's verdict, on the finding that names it.
    dmarc.penalty = fromTenths(tenths(dmarc.penalty) + ownTenths - ceiling);
    ownTenths = ceiling;
  }
  const judgement = judgeByEngines(engines, ownTenths, checks);
  const score = scoreOfTenths(judgement.scoreTenths);
  return {
    score,
    verdict: scoreVerdict(score),
    checks: [...checks, judgement.check],
    engines,
    authenticationResults: auth?.headers.trim() ?? '',
    fromDomain,
    envelopeFrom: arrival.mailFrom,
    remoteIp: arrival.ip,
    sizeBytes: arrival.raw.length,
    analysedAt: new Date().toISOString(),
  };
};
