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

/**
 * Asks one domain's best reachable server about its addresses over as few connections as
 * it can; a 4xx (greylisting) is asked again after a pause; a server that cannot be
 * reached leaves the address unknown, never invalid.
 */
const probeDomain = async (domain: string, pending: TPending[], options: TEngineOptions): Promise<TVerification[]> => {
  const servers = await mailServersOf(options.resolver, domain);
  if (servers.problem) {
    return pending.map((item) => ({ ...item, ...servers.problem, mx: null }));
  }
  const results: TVerification[] = [];
  let catchAll: boolean | null = null;
  let remaining = [...pending];
  let session: TProbeSession | null = null;
  let host: string | null = null;
  let unreachable: string | null = null;
  const connect = async () => {
    for (const candidate of servers.hosts) {
      try {
        session = await openProbe({
          host: await addressOf(options.resolver, candidate),
          port: options.port,
          heloName: options.heloName,
          mailFrom: options.mailFrom,
          stepTimeoutMs: options.stepTimeoutMs,
        });
        host = candidate;
        return true;
      } catch (error) {
        unreachable = error instanceof ProbeError ? `${error.kind}: ${error.message}` : String(error);
      }
    }
    return false;
  };
  let asked = 0;
  let retries = 0;
  while (remaining.length > 0) {
    if (!session || asked >= options.perConnection) {
      await (session as TProbeSession | null)?.quit();
      session = null;
      asked = 0;
      if (!(await connect())) {
        for (const item of remaining) {
          results.push({
            ...item,
            verdict: 'unknown',
            reason: `No mail server of the domain could be reached (${unreachable}).`,
            mx: servers.hosts[0] ?? null,
            unreachable: true,
          });
        }
        return results;
      }
    }
    const item = remaining[0]!;
    try {
      const reply = await session!.rcpt(item.email);
      asked += 1;
      if (reply.code >= 400 && reply.code < 500 && retries < options.greylistRetries) {
        // Greylisted (or a busy server): asked again after a pause, on a new connection.
        retries += 1;
        await session!.quit();
        session = null;
        await sleep(options.greylistDelayMs);
        continue;
      }
      retries = 0;
      remaining = remaining.slice(1);
      if (reply.code >= 200 && reply.code < 300) {
        if (catchAll === null) {
          const probe = await session!.rcpt(`${randomBytes(10).toString('hex')}@${domain}`);
          asked += 1;
          catchAll = probe.code >= 200 && probe.code < 300;
        }
        results.push(
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
        results.push({ ...item, verdict: 'invalid', reason: `${reply.code} ${reply.text}`.slice(0, 500), mx: host });
      } else {
        results.push({
          ...item,
          verdict: 'unknown',
          reason: `The server did not say (${reply.code} ${reply.text})`.slice(0, 500),
          mx: host,
        });
      }
    } catch (error) {
      // A timeout or a dropped line: this address is unknown; the rest go on a new connection.
      session = null;
      remaining = remaining.slice(1);
      retries = 0;
      const why = error instanceof ProbeError ? error.message : String(error);
      results.push({ ...item, verdict: 'unknown', reason: `The server stopped answering (${why}).`, mx: host });
    }
  }
  await (session as TProbeSession | null)?.quit();
  return results;
};

/** Verifies addresses; answers one result per input, in order. */
export const verifyAddresses = async (inputs: string[], options: TEngineOptions): Promise<TVerification[]> => {
  const results = new Map<number, TVerification>();
  const byDomain = new Map<string, { index: number; pending: TPending }[]>();
  inputs.forEach((input, index) => {
    const checked = precheck(input, options.roleNames);
    if ('verdict' in checked) {
      results.set(index, checked);
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
      const verified = await probeDomain(
        domain,
        items.map((item) => item.pending),
        options,
      );
      for (const [position, result] of verified.entries()) results.set(items[position]!.index, result);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, domains.length)) }, worker));
  return inputs.map((_, index) => results.get(index)!);
};
