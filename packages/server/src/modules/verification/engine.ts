import { randomBytes } from 'node:crypto';
import type { Resolver } from 'node:dns/promises';
import { createRequire } from 'node:module';
import { readEmailCell, VERIFY_MESSAGES } from '@sendwell/contracts';
import emailSpellChecker from '@zootools/email-spell-checker';
import type { TConfig } from '../../platform/config';
import { resolvePublicHost } from '../../platform/network-guard';
import type { TSlot, TSlotPool } from '../../platform/shared-slots';
import { openProbe, ProbeError, type TProbeSession } from './smtp-probe';

/**
 * The verification engine: one address after another through syntax (the list import's
 * rules, one implementation), disposable domains (a maintained list), role addresses, the
 * domain's mail servers (MX, else its A record), and an SMTP probe of the best server that
 * asks about the mailbox and a random one at the same domain (catch-all) and never sends.
 * Addresses of one domain share a connection; domains run side by side, few connections per
 * mail server however many jobs and workers ask it. Every server is reached through the
 * network guard: one on a private network is never connected to (R35).
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
  /**
   * Invalid on the DNS's word alone (no MX or A record, a null MX): believed only while the
   * resolver finds the names that must exist (R48).
   */
  isDnsVerdict?: boolean;
  /** Unknown because the resolver is broken (R48): not kept as the address's result. */
  isResolverFault?: boolean;
};

/** The probe's settings as configured (`VERIFY_*`, `platform/config.ts`), and what the caller adds. */
export type TEngineOptions = Omit<TConfig['verify'], 'dnsServers'> & {
  resolver: Resolver;
  /** Addresses asked per connection before it is opened anew. */
  perConnection: number;
  /** Where the `connectionsPerServer` slots are held: shared ones count across every job and worker process (R36). */
  slots: TSlotPool;
  roleNames: Set<string>;
  /**
   * Set when the resolver does not find names that must exist (R48): nothing that rests on
   * DNS is asked, and every address past the syntax and disposable checks is unknown with this reason.
   */
  resolverFault?: string | null;
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

type TPending = { email: string; flags: TVerification['flags']; suggestion: string | null };

/** Consecutive timeouts after which a domain's remaining addresses are not asked (its server is too slow). */
const TIMEOUTS_BEFORE_GIVING_UP = 2;

/** A server's address as the network guard answered it (R35): resolved once, public, or why not. */
type TServerAddress = { address: string } | { refusal: 'not-public' | 'not-found'; detail: string };

/**
 * One connection's state while asking a domain's server: the slot it holds on that
 * server (shared by every job and worker process, R36) and the conversation, if open.
 */
type TLane = { slot: TSlot | null; open: { session: TProbeSession; host: string } | null; asked: number };

/**
 * Asks one domain's best reachable server about its addresses. Up to
 * `connectionsPerServer` lanes ask side by side, each holding one of the server's slots
 * (the first is handed in; the others are used only when free now) and taking the next
 * address from one queue, reconnecting every `perConnection` questions. Each verdict is
 * handed to `emit` as soon as it is known. A 4xx (greylisting) sets the address aside: the
 * others go on, and the set-aside are asked again once `greylistDelayMs` has passed since
 * the first 4xx, with the slots given back meanwhile. A server that cannot be reached leaves
 * its addresses unknown, never invalid; one on a private network is never connected to;
 * after two timeouts in a row the domain's remaining addresses are unknown without waiting
 * on each.
 */
const probeDomain = async (
  domain: string,
  hosts: string[],
  firstSlot: TSlot,
  pending: TPending[],
  options: TEngineOptions,
  emit: (position: number, result: TVerification) => void,
) => {
  let consecutiveTimeouts = 0;
  let unreachable: string | null = null;
  let isUnreachable = false;
  let catchAll: boolean | null = null;
  const limit = options.connectionsPerServer;

  // Each server is resolved once for the domain, through the guard, and connected to by that address.
  const addresses = new Map<string, Promise<TServerAddress>>();
  const addressOf = (host: string) => {
    let found = addresses.get(host);
    if (!found) {
      found = resolvePublicHost(host, {
        allowLoopback: options.allowLoopback,
        lookup: (name) => options.resolver.resolve4(name),
      }).then(
        (address): TServerAddress => ({ address }),
        (error: unknown): TServerAddress =>
          (error as { code?: string }).code === 'HOST_NOT_ALLOWED'
            ? { refusal: 'not-public', detail: VERIFY_MESSAGES.notPublic }
            : { refusal: 'not-found', detail: `${host} has no address` },
      );
      addresses.set(host, found);
    }
    return found;
  };
  /** Every server of the domain is on a private network: nothing was asked, nothing connected. */
  const isNotPublic = async () =>
    (await Promise.all(hosts.map(addressOf))).every(
      (address) => 'refusal' in address && address.refusal === 'not-public',
    );

  const connect = async (lane: TLane) => {
    for (const host of hosts) {
      const found = await addressOf(host);
      if ('refusal' in found) {
        if (found.refusal === 'not-found') unreachable = found.detail;
        continue;
      }
      if (lane.slot?.key !== host) {
        lane.slot?.release();
        lane.slot = null;
        lane.slot = await options.slots.take(host, limit);
      }
      try {
        const session = await openProbe({
          host: found.address,
          port: options.port,
          heloName: options.heloName,
          mailFrom: options.mailFrom,
          stepTimeoutMs: options.stepTimeoutMs,
        });
        return { session, host };
      } catch (error) {
        unreachable = error instanceof ProbeError ? `${error.kind}: ${error.message}` : String(error);
      }
    }
    return null;
  };

  const unknownFor = async (item: TPending): Promise<TVerification> =>
    (await isNotPublic())
      ? { ...item, verdict: 'unknown', reason: VERIFY_MESSAGES.notPublic, mx: null }
      : {
          ...item,
          verdict: 'unknown',
          reason: `No mail server of the domain could be reached (${unreachable}).`,
          mx: hosts[0] ?? null,
          unreachable: true,
        };

  /** One lane's share of a pass: the next address from the queue until none is left. */
  const askAll = async (lane: TLane, next: () => number | undefined, isLastTry: boolean, setAside: number[]) => {
    for (let position = next(); position !== undefined; position = next()) {
      const item = pending[position]!;
      if (isUnreachable) {
        emit(position, await unknownFor(item));
        continue;
      }
      if (consecutiveTimeouts >= TIMEOUTS_BEFORE_GIVING_UP) {
        emit(position, {
          ...item,
          verdict: 'unknown',
          reason: `The domain's mail server is too slow to answer (no answer within ${options.stepTimeoutMs} ms, twice).`,
          mx: lane.open?.host ?? hosts[0] ?? null,
        });
        continue;
      }
      if (!lane.open || lane.asked >= options.perConnection) {
        await lane.open?.session.quit();
        lane.asked = 0;
        lane.open = await connect(lane);
        if (!lane.open) {
          isUnreachable = true;
          emit(position, await unknownFor(item));
          continue;
        }
      }
      const { session, host } = lane.open;
      try {
        const reply = await session.rcpt(item.email);
        lane.asked += 1;
        consecutiveTimeouts = 0;
        if (reply.code >= 400 && reply.code < 500 && !isLastTry) {
          // Greylisted (or a busy server): asked again after the pause, the others meanwhile.
          setAside.push(position);
          continue;
        }
        if (reply.code >= 200 && reply.code < 300) {
          if (catchAll === null) {
            const probe = await session.rcpt(`${randomBytes(10).toString('hex')}@${domain}`);
            lane.asked += 1;
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
        lane.open = null;
        if (error instanceof ProbeError && error.kind === 'timeout') consecutiveTimeouts += 1;
        const why = error instanceof ProbeError ? error.message : String(error);
        emit(position, { ...item, verdict: 'unknown', reason: `The server stopped answering (${why}).`, mx: host });
      }
    }
    await lane.open?.session.quit();
    lane.open = null;
  };

  let queue = pending.map((_, position) => position);
  let slot: TSlot | null = firstSlot;
  for (let attempt = 0; queue.length > 0; attempt++) {
    const isLastTry = attempt >= options.greylistRetries;
    const setAside: number[] = [];
    const wanted = Math.max(1, Math.min(limit, Math.ceil(queue.length / options.perConnection)));
    const lanes: TLane[] = [{ slot: slot ?? (await options.slots.take(hosts[0]!, limit)), open: null, asked: 0 }];
    slot = null;
    while (lanes.length < wanted) {
      const extra = await options.slots.tryTake(hosts[0]!, limit);
      if (!extra) break;
      lanes.push({ slot: extra, open: null, asked: 0 });
    }
    let cursor = 0;
    const next = () => (cursor < queue.length ? queue[cursor++] : undefined);
    const started = Date.now();
    try {
      await Promise.all(lanes.map((lane) => askAll(lane, next, isLastTry, setAside)));
    } finally {
      for (const lane of lanes) lane.slot?.release();
    }
    if (setAside.length === 0) break;
    await sleep(Math.max(0, options.greylistDelayMs - (Date.now() - started)));
    queue = setAside.sort((a, b) => a - b);
  }
};

type TDomainWork = { domain: string; hosts: string[]; items: { index: number; pending: TPending }[] };

/**
 * Verifies addresses, domains side by side (`concurrency` at once), handing each verdict to
 * `onResult` (the input's index) the moment it is known; answers one result per input, in
 * order, once all are in. A domain whose best server has no free slot (other domains,
 * jobs or workers are talking to it) waits aside while domains on other servers go on;
 * once no other work is left, it is taken up as slots free, at most `connectionsPerServer`
 * waiters per server.
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
    if (options.resolverFault) {
      const { domain: _domain, ...known } = checked;
      record(index, { ...known, verdict: 'unknown', reason: options.resolverFault, mx: null, isResolverFault: true });
      return;
    }
    const list = byDomain.get(checked.domain) ?? [];
    list.push({ index, pending: { email: checked.email, flags: checked.flags, suggestion: checked.suggestion } });
    byDomain.set(checked.domain, list);
  });
  const domains = [...byDomain.entries()];
  const limit = options.connectionsPerServer;
  const waiting = new Map<string, TDomainWork[]>();
  const workersOn = new Map<string, number>();
  let next = 0;

  const probe = (work: TDomainWork, slot: TSlot) =>
    probeDomain(
      work.domain,
      work.hosts,
      slot,
      work.items.map((item) => item.pending),
      options,
      (position, result) => record(work.items[position]!.index, result),
    );

  const worker = async () => {
    while (next < domains.length) {
      const [domain, items] = domains[next++]!;
      const servers = await mailServersOf(options.resolver, domain);
      if (servers.problem) {
        const isDnsVerdict = servers.problem.verdict === 'invalid';
        for (const item of items) record(item.index, { ...item.pending, ...servers.problem, mx: null, isDnsVerdict });
        continue;
      }
      const work = { domain, hosts: servers.hosts, items };
      const slot = await options.slots.tryTake(servers.hosts[0]!, limit);
      if (slot) {
        await probe(work, slot);
      } else {
        const host = servers.hosts[0]!;
        waiting.set(host, [...(waiting.get(host) ?? []), work]);
      }
    }
    // Nothing new left: wait for the busy servers, no more waiters on one than it has slots.
    for (;;) {
      const host = [...waiting.keys()].find((candidate) => (workersOn.get(candidate) ?? 0) < limit);
      if (host === undefined) return;
      workersOn.set(host, (workersOn.get(host) ?? 0) + 1);
      try {
        for (let work = waiting.get(host)?.shift(); work; work = waiting.get(host)?.shift()) {
          if (waiting.get(host)?.length === 0) waiting.delete(host);
          await probe(work, await options.slots.take(host, limit));
        }
      } finally {
        workersOn.set(host, (workersOn.get(host) ?? 1) - 1);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, domains.length)) }, worker));
  return inputs.map((_, index) => results.get(index)!);
};
