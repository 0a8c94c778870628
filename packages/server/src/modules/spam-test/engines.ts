import net from 'node:net';
import type { TSpamEngine } from '@sendwell/contracts';

/**
 * The content engines a spam test asks when they are reachable: rspamd over its HTTP API
 * (`POST /checkv2`) and SpamAssassin's spamd over its own protocol (SPAMC/1.5 REPORT).
 * Neither is required: an engine that is off or does not answer is reported as such, and
 * the score rests on Sendwell's own checks.
 */

const ENGINE_TIMEOUT_MS = 10_000;

type TRule = TSpamEngine['rules'][number];

const sortRules = (rules: TRule[]) =>
  rules.filter((rule) => rule.score !== 0).sort((a, b) => Math.abs(b.score) - Math.abs(a.score));

type TRspamdAnswer = {
  score: number;
  required_score: number;
  action: string;
  symbols?: Record<string, { name: string; score: number; description?: string; options?: string[] }>;
};

export const askRspamd = async (
  url: string | null,
  raw: Buffer,
  envelope: { ip: string; helo: string; from: string; rcpt: string },
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
      signal: AbortSignal.timeout(ENGINE_TIMEOUT_MS),
    });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const answer = (await response.json()) as TRspamdAnswer;
    const rules = Object.values(answer.symbols ?? {}).map((symbol) => ({
      name: symbol.name,
      score: Math.round(symbol.score * 100) / 100,
      description: [symbol.description, symbol.options?.length ? `(${symbol.options.slice(0, 3).join(', ')})` : '']
        .filter(Boolean)
        .join(' '),
    }));
    return {
      name,
      status: 'scored',
      score: Math.round(answer.score * 100) / 100,
      threshold: answer.required_score,
      detail: `rspamd's action: ${answer.action}.`,
      rules: sortRules(rules),
    };
  } catch (error) {
    return {
      name,
      status: 'unreachable',
      score: null,
      threshold: null,
      detail: `Not reachable at ${url} (${(error as Error).message}).`,
      rules: [],
    };
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
const spamdExchange = (host: string, port: number, request: Buffer) =>
  new Promise<string>((resolve, reject) => {
    const socket = net.connect({ host, port });
    const chunks: Buffer[] = [];
    socket.setTimeout(ENGINE_TIMEOUT_MS, () => socket.destroy(new Error('timed out')));
    socket.on('connect', () => socket.end(request));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });

export const askSpamAssassin = async (
  spamd: { host: string; port: number } | null,
  raw: Buffer,
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
    const answer = await spamdExchange(spamd.host, spamd.port, Buffer.concat([head, raw]));
    const status = /^SPAMD\/[\d.]+ (\d+) (\S+)/.exec(answer);
    if (!status) throw new Error('not a spamd answer');
    if (status[1] !== '0') throw new Error(`spamd answered ${status[1]} ${status[2]}`);
    const verdict = /^Spam: (\w+) ; (-?[\d.]+) \/ (-?[\d.]+)/m.exec(answer);
    if (!verdict) throw new Error('spamd gave no score');
    const body = answer.slice(answer.indexOf('\r\n\r\n') + 4);
    return {
      name,
      status: 'scored',
      score: Number(verdict[2]),
      threshold: Number(verdict[3]),
      detail: `SpamAssassin ${verdict[1] === 'True' ? 'marks it as spam' : 'does not mark it as spam'}.`,
      rules: sortRules(parseSpamdReport(body)),
    };
  } catch (error) {
    return {
      name,
      status: 'unreachable',
      score: null,
      threshold: null,
      detail: `Not reachable at ${where} (${(error as Error).message}).`,
      rules: [],
    };
  }
};
