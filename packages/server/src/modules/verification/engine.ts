import { randomBytes } from 'node:crypto';
import type { Resolver } from 'node:dns/promises';
import { createRequire } from 'node:module';
import { readEmailCell } from '@sendwell/contracts';
import emailSpellChecker from '@zootools/email-spell-checker';
import { openProbe, ProbeError, type TProbeSession } from './smtp-probe';

/**
 * The verification engine: one address after another through syntax (the list import's
 * rules, one implementation), disposable domains (a maintained list), role addresses, the
 * domain's mail servers (MX, else its A record), and an SMTP probe of the best server that
 * asks about the mailbox and a random one at the same domain (catch-all) and never sends.
 * Addresses of one domain share a connection; domains run side by side, few per domain.
 */

export type TVerdict = 'valid' | 'invalid' | 'unknown';

export type TVerification = {
  email: string;
  verdict: TVerdict;
  reason: string;
  flags: { disposable: boolean; role: boolean; catchAll: boolean; freeProvider: boolean };
  /** A likely intended address (gmial.com → gmail.com), or null. */
  suggestion: string | null;
  mx: string | null;
  /** No mail server of the domain answered on the probe's port (blocked port 25 looks like this). */
  unreachable?: boolean;
};

export type TEngineOptions = {
  resolver: Resolver;
  /** 25 in production; tests run loopback servers on other ports. */
  port: number;
  heloName: string;
  mailFrom: string;
  stepTimeoutMs: number;
  /** 4xx answers (greylisting) are asked again this many times, `greylistDelayMs` apart. */
  greylistRetries: number;
  greylistDelayMs: number;
  /** Domains probed at once. */
  concurrency: number;
  /** Addresses asked per connection before it is opened anew. */
  perConnection: number;
  /** Connections to one domain's server at once (a large domain is asked in lanes). */
  connectionsPerDomain: number;
  roleNames: Set<string>;
};

// The list is a JSON file (the package's main): required, as Node's ESM imports JSON only with an attribute.
const DISPOSABLE = new Set<string>(createRequire(import.meta.url)('disposable-email-domains') as string[]);
const FREE_PROVIDERS = new Set([
  'gmail.com',
  'googlemail.com',
  'yahoo.com',
  'ymail.com',
  'hotmail.com',
  'outlook.com',
  'live.com',
  'msn.com',
  'aol.com',
  'icloud.com',
  'me.com',
  'mac.com',
  'gmx.com',
  'gmx.de',
  'gmx.net',
  'web.de',
  'mail.com',
  'yandex.com',
  'yandex.ru',
  'mail.ru',
  'proton.me',
  'protonmail.com',
  'zoho.com',
  'qq.com',
  '163.com',
]);

/**
 * A likely intended address: only a misspelling of a well-known mail domain (gmial.com →
 * gmail.com). The checker also "corrects" rare top-level domains (company.io → company.co),
 * which would mislead, so those are not offered.
 */
const POPULAR = new Set([...emailSpellChecker.POPULAR_DOMAINS, ...FREE_PROVIDERS]);
const suggestionFor = (email: string) => {
  const suggested = emailSpellChecker.run({ email });
  if (!suggested || !POPULAR.has(suggested.domain)) return null;
  return suggested.full.toLowerCase() !== email.toLowerCase() ? suggested.full : null;
};

const noFlags = { disposable: false, role: false, catchAll: false, freeProvider: false };

/** What the address's shape and domain alone say, before any server is asked. */
export const precheck = (
  input: string,
  roleNames: Set<string>,
): TVerification | { email: string; domain: string; flags: TVerification['flags']; suggestion: string | null } => {
  const reading = readEmailCell(input);
  if (!reading.email) {
    return {
      email: input.trim(),
      verdict: 'invalid',
      reason: reading.problem ?? 'Not an email address.',
      flags: noFlags,
      suggestion: null,
      mx: null,
    };
  }
  const email = reading.email;
  const at = email.lastIndexOf('@');
  const local = email.slice(0, at).toLowerCase();
  const domain = email.slice(at + 1).toLowerCase();
  const flags = {
    disposable: DISPOSABLE.has(domain),
    role: roleNames.has(local),
    catchAll: false,
    freeProvider: FREE_PROVIDERS.has(domain),
  };
  const suggestion = suggestionFor(email);
  if (flags.disposable) {
    return { email, verdict: 'invalid', reason: 'A disposable (throwaway) address.', flags, suggestion, mx: null };
  }
  return { email, domain, flags, suggestion };
};

type TDomainServers =
  | { hosts: string[]; problem: null }
  | { hosts: []; problem: { verdict: TVerdict; reason: string } };

const isMissing = (error: unknown) =>
  ['ENOTFOUND', 'ENODATA', 'NXDOMAIN'].includes((error as { code?: string }).code ?? '');

/** The domain's mail servers, best first: its MX records, else the domain itself (RFC 5321 A fallback). */
export const mailServersOf = async (resolver: Resolver, domain: string): Promise<TDomainServers> => {
  try {
    const records = await resolver.resolveMx(domain);
    const hosts = records
      .filter((record) => record.exchange && record.exchange !== '.')
      .sort((a, b) => a.priority - b.priority)
      .map((record) => record.exchange);
    if (records.length > 0 && hosts.length === 0) {
      return { hosts: [], problem: { verdict: 'invalid', reason: 'The domain says it takes no mail (null MX).' } };
    }
    if (hosts.length > 0) return { hosts, problem: null };
  } catch (error) {
    if (!isMissing(error)) {
      return {
        hosts: [],
        problem: {
          verdict: 'unknown',
          reason: `The domain's mail servers could not be looked up (${(error as { code?: string }).code ?? 'DNS error'}).`,
        },
      };
    }
  }
  try {
    const addresses = await resolver.resolve4(domain);
    if (addresses.length > 0) return { hosts: [domain], problem: null };
  } catch (error) {
    if (!isMissing(error)) {
      return { hosts: [], problem: { verdict: 'unknown', reason: 'The domain could not be looked up.' } };
    }
  }
  return { hosts: [], problem: { verdict: 'invalid', reason: 'The domain has no mail server (no MX or A record).' } };
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The host's address: a name through the resolver, an IP literal as it is. */
const addressOf = async (resolver: Resolver, host: string) => {
  if (/^\d+\.\d+\.\d+\.\d+$/.test(host) || host.includes(':')) return host;
  const [address] = await resolver.resolve4(host);
  return address ?? host;
};

type TPending = { email: string; flags: TVerification['flags']; suggestion: string | null };

/** Consecutive timeouts after which a domain's remaining addresses are not asked (its server is too slow). */
const TIMEOUTS_BEFORE_GIVING_UP = 2;

/**
 * Asks one domain's best reachable server about its addresses, over up to
 * `connectionsPerDomain` connections at once, each reopened after `perConnection`
 * questions. Each verdict is handed to `emit` as soon as it is known. A 4xx (greylisting)
 * sets the address aside: the others go on, and the set-aside are asked again once
 * `greylistDelayMs` has passed since the first 4xx. A server that cannot be reached leaves
 * its addresses unknown, never invalid; after two timeouts in a row the domain's remaining
 * addresses are unknown without waiting on each.
 */
const probeDomain = async (
  domain: string,
  pending: TPending[],
  options: TEngineOptions,
  emit: (position: number, result: TVerification) => void,
) => {
  const servers = await mailServersOf(options.resolver, domain);
  if (servers.problem) {
    for (const [position, item] of pending.entries()) emit(position, { ...item, ...servers.problem, mx: null });
    return;
  }
  let consecutiveTimeouts = 0;
  let unreachable: string | null = null;
  let isUnreachable = false;

  const connect = async () => {
    for (const candidate of servers.hosts) {
      try {
        const session = await openProbe({
          host: await addressOf(options.resolver, candidate),
          port: options.port,
          heloName: options.heloName,
          mailFrom: options.mailFrom,
          stepTimeoutMs: options.stepTimeoutMs,
        });
        return { session, host: candidate };
      } catch (error) {
        unreachable = error instanceof ProbeError ? `${error.kind}: ${error.message}` : String(error);
      }
    }
    return null;
  };

  /** One connection's share of a pass: its addresses one after another, reconnecting every `perConnection`. */
  const askAll = async (queue: number[], isLastTry: boolean, setAside: number[]) => {
    let open: { session: TProbeSession; host: string } | null = null;
    let asked = 0;
    let catchAll: boolean | null = null;
    for (const position of queue) {
      const item = pending[position]!;
      if (isUnreachable) {
        emit(position, {
          ...item,
          verdict: 'unknown',
          reason: `No mail server of the domain could be reached (${unreachable}).`,
          mx: servers.hosts[0] ?? null,
          unreachable: true,
        });
        continue;
      }
      if (consecutiveTimeouts >= TIMEOUTS_BEFORE_GIVING_UP) {
        emit(position, {
          ...item,
          verdict: 'unknown',
          reason: `The domain's mail server is too slow to answer (no answer within ${options.stepTimeoutMs} ms, twice).`,
          mx: open?.host ?? servers.hosts[0] ?? null,
        });
        continue;
      }
      if (!open || asked >= options.perConnection) {
        await open?.session.quit();
        asked = 0;
        open = await connect();
        if (!open) {
          isUnreachable = true;
          emit(position, {
            ...item,
            verdict: 'unknown',
            reason: `No mail server of the domain could be reached (${unreachable}).`,
            mx: servers.hosts[0] ?? null,
            unreachable: true,
          });
          continue;
        }
      }
      const host = open.host;
      try {
        const reply = await open.session.rcpt(item.email);
        asked += 1;
        consecutiveTimeouts = 0;
        if (reply.code >= 400 && reply.code < 500 && !isLastTry) {
          // Greylisted (or a busy server): asked again after the pause, the others meanwhile.
          setAside.push(position);
          continue;
        }
        if (reply.code >= 200 && reply.code < 300) {
          if (catchAll === null) {
            const probe = await open.session.rcpt(`${randomBytes(10).toString('hex')}@${domain}`);
            asked += 1;
            catchAll = probe.code >= 200 && probe.code < 300;
          }
          emit(
            position,
            catchAll
              ? {
                  ...item,
                  flags: { ...item.flags, catchAll: true },
                  verdict: 'unknown',
                  reason: 'The domain accepts every address (catch-all): this one may not exist.',
                  mx: host,
                }
              : { ...item, verdict: 'valid', reason: `The server accepts this mailbox (${reply.code}).`, mx: host },
          );
        } else if (reply.code >= 500 && reply.code !== 552) {
          emit(position, {
            ...item,
            verdict: 'invalid',
            reason: `${reply.code} ${reply.text}`.slice(0, 500),
            mx: host,
          });
        } else {
          emit(position, {
            ...item,
            verdict: 'unknown',
            reason: `The server did not say (${reply.code} ${reply.text})`.slice(0, 500),
            mx: host,
          });
        }
      } catch (error) {
        // A timeout or a dropped line: this address is unknown; the rest go on a new connection.
        open = null;
        if (error instanceof ProbeError && error.kind === 'timeout') consecutiveTimeouts += 1;
        const why = error instanceof ProbeError ? error.message : String(error);
        emit(position, { ...item, verdict: 'unknown', reason: `The server stopped answering (${why}).`, mx: host });
      }
    }
    await open?.session.quit();
  };

  let queue = pending.map((_, position) => position);
  for (let attempt = 0; queue.length > 0; attempt++) {
    const isLastTry = attempt >= options.greylistRetries;
    const setAside: number[] = [];
    const lanes = Math.max(1, Math.min(options.connectionsPerDomain, Math.ceil(queue.length / options.perConnection)));
    const started = Date.now();
    await Promise.all(
      Array.from({ length: lanes }, (_, lane) =>
        askAll(
          queue.filter((_, index) => index % lanes === lane),
          isLastTry,
          setAside,
        ),
      ),
    );
    if (setAside.length === 0) break;
    await sleep(Math.max(0, options.greylistDelayMs - (Date.now() - started)));
    queue = setAside.sort((a, b) => a - b);
  }
};

/**
 * Verifies addresses, domains side by side (`concurrency` at once), handing each verdict to
 * `onResult` (the input's index) the moment it is known; answers one result per input, in
 * order, once all are in.
 */
export const verifyAddresses = async (
  inputs: string[],
  options: TEngineOptions,
  onResult?: (index: number, result: TVerification) => void,
): Promise<TVerification[]> => {
  const results = new Map<number, TVerification>();
  const record = (index: number, result: TVerification) => {
    results.set(index, result);
    onResult?.(index, result);
  };
  const byDomain = new Map<string, { index: number; pending: TPending }[]>();
  inputs.forEach((input, index) => {
    const checked = precheck(input, options.roleNames);
    if ('verdict' in checked) {
      record(index, checked);
      return;
    }
    const list = byDomain.get(checked.domain) ?? [];
    list.push({ index, pending: { email: checked.email, flags: checked.flags, suggestion: checked.suggestion } });
    byDomain.set(checked.domain, list);
  });
  const domains = [...byDomain.entries()];
  let next = 0;
  const worker = async () => {
    while (next < domains.length) {
      const [domain, items] = domains[next++]!;
      await probeDomain(
        domain,
        items.map((item) => item.pending),
        options,
        (position, result) => record(items[position]!.index, result),
      );
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, domains.length)) }, worker));
  return inputs.map((_, index) => results.get(index)!);
};
