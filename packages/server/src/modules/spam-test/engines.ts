import net from 'node:net';
import type { TSpamEngine } from '@sendwell/contracts';

/**
 * The content engines a spam test asks when they are reachable: rspamd over its HTTP API
 * (`POST /checkv2`) and SpamAssassin's spamd over its own protocol (SPAMC/1.5 REPORT).
 * Neither is required: an engine that is off, unreachable or too slow is reported as such
 * (a timeout by that name), and the score rests on what did answer.
 *
 * Each answer is also read for the engine's content judgement: its score without its own
 * SPF, DKIM, DMARC and ARC rules (Sendwell's authentication checks count those faults, and
 * a fault counts once), and whether that judgement alone, or a verdict the engine forces
 * (GTUBE), calls the message spam.
 */

export const ENGINE_TIMEOUT_MS = 10_000;

type TRule = TSpamEngine['rules'][number];

const sortRules = (rules: TRule[]) =>
  rules.filter((rule) => rule.score !== 0).sort((a, b) => Math.abs(b.score) - Math.abs(a.score));

/**
 * The engines' authentication rules: every rule with SPF, DKIM, DMARC or ARC as a word of its
 * name, wherever it stands (rspamd: R_SPF_*, R_DKIM_*, DMARC_POLICY_*, ARC_*,
 * VIOLATED_DIRECT_SPF, DMARC_POLICY_ALLOW_WITH_FAILURES; SpamAssassin: SPF_*, DKIM_*,
 * DMARC_*, their T_ test forms, the KAM set's KAM_DMARC_*, USER_IN_DEF_SPF_WL), DKIM-prefixed
 * ones (DKIMWL_*) and rspamd's AUTH_NA*. Their points are left out of the content judgement.
 */
export const isAuthenticationRule = (name: string) =>
  /(?:^|_)(?:SPF|DKIM|DMARC|ARC)(?:_|$)|^(?:T_)?DKIM|^AUTH_NA/.test(name);

/**
 * rspamd's own scale: from 6 it adds a spam header (the message goes to the spam folder),
 * from 15 it rejects. `/checkv2` names only the reject threshold (`required_score`), so the
 * spam one is Debian's default, lowered to the reject threshold if that is lower.
 */
const RSPAMD_SPAM_SCORE = 6;
const RSPAMD_SPAM_ACTIONS = new Set(['add header', 'rewrite subject', 'soft reject', 'reject']);

const round2 = (value: number) => Math.round(value * 100) / 100;

/** Why an engine did not answer: a timeout is named as one. */
const failureOf = (error: unknown, where: string) => {
  const isTimeout = (error as Error).name === 'TimeoutError' || (error as Error).message === 'timed out';
  return isTimeout
    ? {
        status: 'timeout' as const,
        detail: `Did not answer within the time allowed (${where}); it did not judge this message.`,
      }
    : { status: 'unreachable' as const, detail: `Not reachable at ${where} (${(error as Error).message}).` };
};

export type TRspamdAnswer = {
  /** Set when a rule decided the action before scoring (GTUBE, a forced action). */
  is_skipped?: boolean;
  score: number;
  required_score: number;
  action: string;
  symbols?: Record<string, { name: string; score: number; description?: string; options?: string[] }>;
};

/** rspamd's `/checkv2` answer as the spam test reads it: its rules, and its content judgement. */
export const readRspamdAnswer = (answer: TRspamdAnswer): TSpamEngine => {
  const rules = Object.values(answer.symbols ?? {}).map((symbol) => ({
    name: symbol.name,
    score: round2(symbol.score),
    description: [symbol.description, symbol.options?.length ? `(${symbol.options.slice(0, 3).join(', ')})` : '']
      .filter(Boolean)
      .join(' '),
  }));
  const spamFrom = Math.min(RSPAMD_SPAM_SCORE, answer.required_score);
  const contentScore = round2(
    rules.filter((rule) => !isAuthenticationRule(rule.name)).reduce((sum, rule) => sum + rule.score, 0),
  );
  // A verdict rspamd reached before scoring (GTUBE, a forced action) is its content judgement.
  const isForced = answer.is_skipped === true && RSPAMD_SPAM_ACTIONS.has(answer.action);
  return {
    name: 'rspamd',
    status: 'scored',
    score: round2(answer.score),
    threshold: spamFrom,
    detail: `rspamd's action: ${answer.action} (spam from ${spamFrom}, reject from ${answer.required_score})${isForced ? ', decided before scoring' : ''}.`,
    rules: sortRules(rules),
    action: answer.action,
    contentScore: isForced ? Math.max(contentScore, answer.required_score) : contentScore,
    isSpam: isForced || contentScore >= spamFrom,
    isForced,
  };
};

export const askRspamd = async (
  url: string | null,
  raw: Buffer,
  envelope: { ip: string; helo: string; from: string; rcpt: string },
  timeoutMs = ENGINE_TIMEOUT_MS,
): Promise<TSpamEngine> => {
  const name = 'rspamd';
  if (!url)
    return { name, status: 'off', score: null, threshold: null, detail: 'Not configured (RSPAMD_URL=off).', rules: [] };
  try {
    const response = await fetch(`${url}/checkv2`, {
      method: 'POST',
      body: raw,
      headers: {
        'content-type': 'message/rfc822',
        IP: envelope.ip,
        Helo: envelope.helo,
        From: envelope.from,
        Rcpt: envelope.rcpt,
      },
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    return readRspamdAnswer((await response.json()) as TRspamdAnswer);
  } catch (error) {
    return { name, score: null, threshold: null, rules: [], ...failureOf(error, url) };
  }
};

/** spamd's REPORT body: a table of ` pts rule name description` rows after a dashed line. */
export const parseSpamdReport = (report: string): TRule[] => {
  const rules: TRule[] = [];
  let inTable = false;
  for (const line of report.split(/\r?\n/)) {
    if (/^\s*-{3,}\s+-{3,}/.test(line)) {
      inTable = true;
      continue;
    }
    if (!inTable) continue;
    const row = /^\s*(-?\d+(?:\.\d+)?)\s+([A-Z0-9_]+)\s+(.*)$/.exec(line);
    if (row) {
      rules.push({ name: row[2]!, score: Number(row[1]), description: row[3]!.trim() });
    } else if (line.trim() && rules.length > 0) {
      const last = rules[rules.length - 1]!;
      last.description = `${last.description} ${line.trim()}`;
    }
  }
  return rules;
};

/** One spamd exchange: the request, then everything spamd writes until it closes. */
const spamdExchange = (host: string, port: number, request: Buffer, timeoutMs: number) =>
  new Promise<string>((resolve, reject) => {
    const socket = net.connect({ host, port });
    const chunks: Buffer[] = [];
    // The whole exchange, not only a silence: a slow spamd trickling its answer is as late.
    const timer = setTimeout(() => socket.destroy(new Error('timed out')), timeoutMs);
    socket.on('close', () => clearTimeout(timer));
    socket.on('connect', () => socket.end(request));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });

export const askSpamAssassin = async (
  spamd: { host: string; port: number } | null,
  raw: Buffer,
  timeoutMs = ENGINE_TIMEOUT_MS,
): Promise<TSpamEngine> => {
  const name = 'SpamAssassin';
  if (!spamd)
    return {
      name,
      status: 'off',
      score: null,
      threshold: null,
      detail: 'Not configured (SPAMD_ADDRESS=off).',
      rules: [],
    };
  const where = `${spamd.host}:${spamd.port}`;
  try {
    const head = Buffer.from(`REPORT SPAMC/1.5\r\nContent-length: ${raw.length}\r\nUser: sendwell\r\n\r\n`);
    const answer = await spamdExchange(spamd.host, spamd.port, Buffer.concat([head, raw]), timeoutMs);
    const status = /^SPAMD\/[\d.]+ (\d+) (\S+)/.exec(answer);
    if (!status) throw new Error('not a spamd answer');
    if (status[1] !== '0') throw new Error(`spamd answered ${status[1]} ${status[2]}`);
    const verdict = /^Spam: (\w+) ; (-?[\d.]+) \/ (-?[\d.]+)/m.exec(answer);
    if (!verdict) throw new Error('spamd gave no score');
    const body = answer.slice(answer.indexOf('\r\n\r\n') + 4);
    const score = Number(verdict[2]);
    const threshold = Number(verdict[3]);
    const rules = parseSpamdReport(body);
    const contentScore = round2(
      score - rules.filter((rule) => isAuthenticationRule(rule.name)).reduce((sum, rule) => sum + rule.score, 0),
    );
    const isSpamInAll = verdict[1] === 'True';
    return {
      name,
      status: 'scored',
      score,
      threshold,
      detail: !isSpamInAll
        ? 'SpamAssassin does not mark it as spam.'
        : contentScore >= threshold
          ? 'SpamAssassin marks it as spam.'
          : `SpamAssassin marks it as spam (${score} where spam starts at ${threshold}) only with its SPF, DKIM and DMARC rules, which Sendwell judges in its own findings; on the content ${contentScore}.`,
      rules: sortRules(rules),
      action: isSpamInAll ? 'spam' : 'no action',
      contentScore,
      isSpam: contentScore >= threshold,
    };
  } catch (error) {
    return { name, score: null, threshold: null, rules: [], ...failureOf(error, where) };
  }
};
