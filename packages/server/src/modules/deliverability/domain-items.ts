import { BlockList, isIP } from 'node:net';
import { BULK_SENDER_DAILY, counted, type TPreSendItem } from '@sendwell/contracts';
import type { TPlatform } from '../../platform/context';
import type { findAccountRow } from '../accounts/accounts.service';
import { accountDkimSelector } from '../accounts/accounts.service';
import { envelopeSenderOf } from '../delivery/delivery.service';
import type { TCachingResolver } from './dns-cache';

/**
 * The checklist's sending-domain group (issue 31 §1, issue 45 §1): SPF where receivers read
 * it (the envelope sender the engine will use, `delivery`'s `envelopeSenderOf`: with
 * BOUNCE_DOMAIN that is the bounce domain, not the From domain), the DKIM key, and DMARC:
 * the From domain's policy and whether SPF or DKIM pass for a domain aligned with it, the
 * way a receiver decides. Each item says what to do.
 */

export type TAccount = NonNullable<Awaited<ReturnType<typeof findAccountRow>>>;
type TResolve = TCachingResolver['resolve'];

/** Selectors Mailgun gives a domain's DKIM key, tried when the user names none. */
const MAILGUN_SELECTORS = ['mx', 'k1', 'smtp', 'krs', 'pic', 'mailo', 'email'];
const MAILGUN_INCLUDES = ['include:mailgun.org', 'include:eu.mailgun.org'];

export const domainItem = (
  id: string,
  title: string,
  status: TPreSendItem['status'],
  detail: string,
  advice: string | null = null,
): TPreSendItem => ({ id, group: 'domain', title, status, detail, advice });

const domainOf = (address: string) => address.slice(address.lastIndexOf('@') + 1).toLowerCase();

export const isTestInbox = (account: TAccount) => account.driver === 'test-inbox';

/** Whether a DNS error means the name or the record is not there (else the DNS did not answer). */
const isAbsent = (error: unknown) => ['ENOTFOUND', 'ENODATA'].includes((error as { code?: string }).code ?? '');

/** The TXT records of a name joined as receivers read them; none when the name has none or does not exist. */
export const txtOf = async (resolve: TResolve, name: string) => {
  try {
    return ((await resolve(name, 'TXT')) as string[][]).map((chunks) => chunks.join(''));
  } catch (error) {
    if (isAbsent(error)) return [];
    throw error;
  }
};

/** A domain's organisational domain (tldts's public suffix list, loaded with the first check, not at every start). */
const organisationOf = async (domain: string) => (await import('tldts')).getDomain(domain) ?? domain;

/**
 * Where receivers read SPF for this account's messages: the envelope sender (MAIL FROM).
 * Mailgun sends with its own at the account's domain; Gmail writes the account's address
 * there; an SMTP account's is the engine's (`envelopeSenderOf`): the VERP address at the
 * bounce domain with BOUNCE_DOMAIN, else the From address.
 */
export type TEnvelope = { address: string; domain: string; kind: 'mailgun' | 'gmail' | 'bounce-domain' | 'from' };
export const envelopeOf = (platform: TPlatform, account: TAccount, fromAddress: string): TEnvelope => {
  if (account.provider === 'mailgun') {
    const domain = (account.domain ?? '').toLowerCase();
    return { address: `bounce@${domain}`, domain, kind: 'mailgun' };
  }
  if (account.provider === 'google' || account.driver === 'gmail') {
    return { address: fromAddress, domain: domainOf(fromAddress), kind: 'gmail' };
  }
  const verp = envelopeSenderOf(platform, 'check');
  return verp
    ? { address: verp, domain: domainOf(verp), kind: 'bounce-domain' }
    : { address: fromAddress, domain: domainOf(fromAddress), kind: 'from' };
};

/** What SPF decided, for DMARC: true pass, false anything else, null not judged (the test inbox, DNS not answering). */
export type TSpfOutcome = { item: TPreSendItem; passes: boolean | null };

/** Whether one of the record's ip4:/ip6: mechanisms (any qualifier) covers the address. */
const recordListsAddress = (record: string, address: string) => {
  const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  return record
    .split(/\s+/)
    .map((term) => /^[+\-~?]?ip([46]):([^/]+)(?:\/(\d+))?$/i.exec(term))
    .some((match) => {
      if (!match) return false;
      const [, version, network, prefix] = match;
      if ((version === '6') !== (family === 'ipv6') || isIP(network!) === 0) return false;
      const list = new BlockList();
      list.addSubnet(network!, Number(prefix ?? (version === '6' ? 128 : 32)), family);
      return list.check(address, family);
    });
};

/** An SPF outcome: whether the domain lets the server send, and the item that says so. */
const spfResult = (
  passes: boolean | null,
  status: TPreSendItem['status'],
  detail: string,
  advice: string | null = null,
): TSpfOutcome => ({ passes, item: domainItem('spf', 'SPF', status, detail, advice) });

const mailgunSpf = async (resolve: TResolve, envelope: TEnvelope): Promise<TSpfOutcome> => {
  // Mailgun's envelope sender is at the account's domain: that is where SPF is read.
  const { domain } = envelope;
  const records = (await txtOf(resolve, domain)).filter((record) => /^v=spf1\b/i.test(record));
  if (records.length === 0) {
    return spfResult(
      false,
      'fail',
      `${domain} publishes no SPF record, so receivers cannot tell Mailgun may send for it.`,
      `Add the TXT record "v=spf1 include:mailgun.org ~all" to ${domain} (Mailgun's domain settings list it).`,
    );
  }
  const isIncluded = records.some((record) =>
    MAILGUN_INCLUDES.some((include) => record.toLowerCase().split(/\s+/).includes(include)),
  );
  return isIncluded
    ? spfResult(true, 'pass', `${domain}'s SPF record allows Mailgun (${records[0]}).`)
    : spfResult(
        false,
        'fail',
        `${domain}'s SPF record does not include Mailgun: ${records[0]}`,
        'Add include:mailgun.org to the record (before its all).',
      );
};

export const spfOutcome = async (
  platform: TPlatform,
  resolve: TResolve,
  account: TAccount,
  fromAddress: string,
): Promise<TSpfOutcome> => {
  if (isTestInbox(account)) {
    return spfResult(null, 'info', 'The test inbox keeps messages on this server: no receiver checks SPF.');
  }
  const envelope = envelopeOf(platform, account, fromAddress);
  if (envelope.kind === 'mailgun') return mailgunSpf(resolve, envelope);
  // An SMTP server: does the envelope domain's SPF allow the server's own address?
  const host = account.host ?? '';
  const isAddressHost = isIP(host) !== 0;
  let address = isAddressHost ? host : null;
  if (!address) {
    try {
      address = ((await resolve(host, 'A')) as string[])[0] ?? null;
    } catch (error) {
      if (!isAbsent(error)) {
        return spfResult(
          null,
          'warn',
          `The DNS did not answer for ${host}'s address, so SPF was not checked.`,
          'Try the check again in a moment.',
        );
      }
    }
  }
  if (!address) {
    return spfResult(
      null,
      'warn',
      `${host} has no address in the DNS, so SPF was not checked.`,
      "Check the account's SMTP host on Sending Accounts.",
    );
  }
  const server = isAddressHost ? `the SMTP server ${address}` : `${host} (${address})`;
  const mechanism = `${isIP(address) === 6 ? 'ip6' : 'ip4'}:${address}`;
  const { domain } = envelope;
  // With BOUNCE_DOMAIN, receivers read SPF at the bounce domain: say so, and what to publish there.
  const where =
    envelope.kind === 'bounce-domain'
      ? `The envelope sender is at the bounce domain ${domain} (BOUNCE_DOMAIN), where receivers read SPF: `
      : '';
  const publish =
    envelope.kind === 'bounce-domain'
      ? `Publish at ${domain} the TXT record "v=spf1 ${mechanism} ~all" (or your SMTP provider's include), beside the MX record that brings bounces to Sendwell.`
      : `Add a TXT record to ${domain} that allows ${server}, e.g. "v=spf1 ${mechanism} ~all", or your provider's include.`;
  // Loaded with the first check, not at start (spam-test/analysis.ts says why).
  const { spf } = await import('mailauth/lib/spf/index.js');
  const result = (await spf({
    sender: envelope.address,
    ip: address,
    helo: host,
    mta: 'sendwell.local',
    // The resolver answers as dns.promises.resolve does: strings, or TXT's chunks of strings.
    resolver: (name: string, type: string) => resolve(name, type) as Promise<string[] | string[][]>,
  })) as { status: { result: string }; rr?: string; lookups?: { count: number; limit: number } };
  const record = result.rr ?? '';
  /** What to change when the record does not allow the server: never "add" an address it lists already. */
  const change = recordListsAddress(record, address)
    ? `The record lists ${address}, yet an earlier term or its qualifier (-, ~ or ?) decides first: put "${mechanism}" with no qualifier before the others.`
    : `Add "${mechanism}" or your provider's include to the record, before its all.`;
  switch (result.status.result) {
    case 'pass':
      return spfResult(true, 'pass', `${where}${domain}'s SPF record allows ${server}.`);
    case 'none':
      return spfResult(false, 'fail', `${where}${domain} publishes no SPF record.`, publish);
    case 'fail':
      return spfResult(
        false,
        'fail',
        `${where}${domain}'s SPF record does not allow ${server}: receivers treat the mail as forged.`,
        change,
      );
    case 'softfail':
    case 'neutral':
      return spfResult(
        false,
        'warn',
        `${where}${domain}'s SPF record does not allow ${server} (${result.status.result}).`,
        change,
      );
    case 'temperror':
      return spfResult(
        null,
        'warn',
        `${where}the DNS did not answer while ${domain}'s SPF record was read (temperror), so SPF could not be evaluated.`,
        'Try the check again in a moment.',
      );
    default: {
      const lookups = result.lookups;
      return spfResult(
        false,
        'fail',
        `${where}${domain}'s SPF record is broken (${result.status.result})${
          lookups && lookups.count > lookups.limit
            ? `: it needs ${counted(lookups.count, 'DNS lookup')}, more than the ${lookups.limit} receivers allow`
            : ''
        }: receivers treat it as no record.`,
        'Check the record for syntax errors and for more than 10 DNS lookups (each include, a, mx and redirect counts).',
      );
    }
  }
};

/** What DKIM found, for DMARC: a key of `domain` (true), none or revoked (false), not checked (null). */
export type TDkimOutcome = { item: TPreSendItem; signs: boolean | null; domain: string };

export const dkimOutcome = async (
  platform: TPlatform,
  resolve: TResolve,
  account: TAccount,
  fromAddress: string,
  asked: string | undefined,
): Promise<TDkimOutcome> => {
  const title = 'DKIM';
  const domain = account.provider === 'mailgun' ? (account.domain ?? '') : domainOf(fromAddress);
  if (isTestInbox(account)) {
    return {
      signs: null,
      domain,
      item: domainItem('dkim', title, 'info', 'The test inbox keeps messages on this server: nothing is signed.'),
    };
  }
  // The selector named for this check, else the account's (an SMTP account's field, or what
  // Mailgun's domain API reports), else for Mailgun its usual ones.
  const own = asked ? null : await accountDkimSelector(platform, account);
  const selector = asked || own?.selector || undefined;
  const selectors = selector ? [selector] : account.provider === 'mailgun' ? MAILGUN_SELECTORS : [];
  const whence =
    own?.source === 'mailgun'
      ? " (the selector Mailgun's domain API reports)"
      : own?.source === 'account'
        ? " (the account's DKIM selector)"
        : '';
  if (selectors.length === 0) {
    return {
      signs: null,
      domain,
      item: domainItem(
        'dkim',
        title,
        'info',
        `Name the DKIM selector your SMTP server signs ${domain} with to check its key.`,
        "Enter it as the account's DKIM selector on Sending Accounts: your provider shows it with the DKIM record, the part before ._domainkey.",
      ),
    };
  }
  const found = await Promise.all(
    selectors.map(async (name) => ({
      name,
      records: (await txtOf(resolve, `${name}._domainkey.${domain}`)).filter((record) => /(^|;)\s*p=/i.test(record)),
    })),
  );
  const key = found.find((entry) => entry.records.length > 0);
  if (!key) {
    return {
      // Mailgun's usual selectors tried without one named: the key may sit under another.
      signs: selector ? false : null,
      domain,
      item: domainItem(
        'dkim',
        title,
        selector ? 'fail' : 'warn',
        selector
          ? `No DKIM key at ${selector}._domainkey.${domain}${whence}.`
          : `No DKIM key was found for ${domain} under Mailgun's usual selectors${
              own?.problem ? ` (Mailgun's domain API could not be asked: ${own.problem})` : ''
            }.`,
        'Publish the DKIM record your provider gives you, then check again.',
      ),
    };
  }
  const isRevoked = key.records.every((record) => /(^|;)\s*p=\s*(;|$)/i.test(record));
  return isRevoked
    ? {
        signs: false,
        domain,
        item: domainItem(
          'dkim',
          title,
          'fail',
          `The DKIM key at ${key.name}._domainkey.${domain} is revoked (empty p=).`,
        ),
      }
    : {
        signs: true,
        domain,
        item: domainItem(
          'dkim',
          title,
          'pass',
          `${domain} publishes a DKIM key under the selector ${key.name}${whence}.`,
        ),
      };
};

const tagOf = (record: string, tag: string) =>
  new RegExp(`(?:^|;)\\s*${tag}\\s*=\\s*([^;\\s]+)`, 'i').exec(record)?.[1]?.toLowerCase() ?? null;

/** The From domain's DMARC record (else its organizational domain's), with the policy that applies to it. */
const dmarcRecordOf = async (resolve: TResolve, fromDomain: string) => {
  const org = await organisationOf(fromDomain);
  for (const domain of fromDomain === org ? [fromDomain] : [fromDomain, org]) {
    const record = (await txtOf(resolve, `_dmarc.${domain}`)).find((value) => /^v=DMARC1\b/i.test(value));
    if (!record) continue;
    const policy = tagOf(record, 'p') ?? 'none';
    // A subdomain under its organization's record follows sp= where it is given.
    const applied = domain !== fromDomain ? (tagOf(record, 'sp') ?? policy) : policy;
    return {
      record,
      domain,
      policy: applied,
      isStrictSpf: tagOf(record, 'aspf') === 's',
      isStrictDkim: tagOf(record, 'adkim') === 's',
    };
  }
  return null;
};

/** DMARC alignment: the same domain (strict), or the same organizational domain (relaxed, the default). */
const isAligned = async (domain: string, fromDomain: string, isStrict: boolean) =>
  isStrict ? domain === fromDomain : (await organisationOf(domain)) === (await organisationOf(fromDomain));

export const dmarcItems = async (
  platform: TPlatform,
  resolve: TResolve,
  input: {
    account: TAccount;
    fromAddress: string;
    audience: number;
    spf: TSpfOutcome;
    dkim: TDkimOutcome;
  },
): Promise<TPreSendItem[]> => {
  const { account, fromAddress, audience, spf, dkim } = input;
  const fromDomain = domainOf(fromAddress);
  const isBulk = audience >= BULK_SENDER_DAILY;
  const dmarc = await dmarcRecordOf(resolve, fromDomain);
  const items: TPreSendItem[] = [];
  if (!dmarc) {
    items.push(
      domainItem(
        'dmarc',
        'DMARC',
        isBulk ? 'fail' : 'warn',
        `${fromDomain} publishes no DMARC policy.`,
        `Add a TXT record at _dmarc.${fromDomain}, e.g. "v=DMARC1; p=none; rua=mailto:dmarc@${fromDomain}", then tighten it.`,
      ),
    );
  } else if (isTestInbox(account)) {
    items.push(
      domainItem(
        'dmarc',
        'DMARC',
        'info',
        `${dmarc.domain} publishes DMARC with policy ${dmarc.policy}; the test inbox keeps messages on this server, so no receiver applies it.`,
      ),
    );
  } else {
    const envelope = envelopeOf(platform, account, fromAddress);
    const orgFrom = await organisationOf(fromDomain);
    const isSpfAligned = spf.passes === true && (await isAligned(envelope.domain, fromDomain, dmarc.isStrictSpf));
    const isDkimAligned = dkim.signs === true && (await isAligned(dkim.domain, fromDomain, dmarc.isStrictDkim));
    const passes = isSpfAligned || isDkimAligned;
    const isEnforcing = dmarc.policy === 'quarantine' || dmarc.policy === 'reject';
    const spfWords =
      spf.passes === null
        ? `SPF could not be evaluated for ${envelope.domain}`
        : spf.passes === false
          ? `SPF does not pass for ${envelope.domain}`
          : isSpfAligned
            ? `SPF passes for ${envelope.domain}, aligned with ${fromDomain}`
            : `SPF passes for ${envelope.domain}, which is not aligned with ${fromDomain}`;
    const dkimWords =
      dkim.signs === null
        ? `a DKIM signature of ${fromDomain} was not checked`
        : isDkimAligned
          ? `a DKIM key of ${dkim.domain} is published, aligned with ${fromDomain}`
          : dkim.signs
            ? `the DKIM key is of ${dkim.domain}, not aligned with ${fromDomain}`
            : `no DKIM key of ${dkim.domain} signs it`;
    const policyWords = `${dmarc.domain} publishes DMARC with policy ${dmarc.policy}${
      dmarc.policy === 'none' ? ' (reports only: receivers act on nothing)' : ''
    }`;
    /** What makes DMARC pass when it does not: aligned SPF (the bounce domain's fix), or an aligned DKIM signature. */
    const alignAdvice =
      envelope.kind === 'bounce-domain'
        ? `Sign with ${fromDomain}'s DKIM key (your SMTP provider's DKIM setting; name its selector to check it), or use a bounce domain under ${orgFrom} such as bounces.${orgFrom} (its MX to Sendwell's bounce receiver, its SPF allowing your SMTP server), which relaxed alignment accepts: BOUNCE_DOMAIN is set where Sendwell runs.`
        : envelope.kind === 'mailgun'
          ? `Send from an address at ${await organisationOf(envelope.domain)} (or one of its subdomains), or sign with ${fromDomain}'s DKIM key.`
          : `Make SPF pass for ${envelope.domain} (the SPF item says how), or sign with ${fromDomain}'s DKIM key.`;
    if (passes) {
      const how = isSpfAligned ? spfWords : dkimWords;
      items.push(
        dmarc.policy === 'none'
          ? domainItem(
              'dmarc',
              'DMARC',
              'warn',
              `${policyWords}; DMARC passes (${how}).`,
              `Once the reports${tagOf(dmarc.record, 'rua') ? '' : ' (add rua=mailto:… to receive them)'} show your mail passing, move to p=quarantine, then to p=reject: until then anyone may send as ${fromDomain}.`,
            )
          : domainItem('dmarc', 'DMARC', 'pass', `${policyWords}; DMARC passes (${how}).`),
      );
    } else if (dkim.signs === null || spf.passes === null) {
      // DMARC rests on what this check could not see: a signature, or SPF the DNS did not answer for.
      items.push(
        domainItem(
          'dmarc',
          'DMARC',
          'warn',
          dkim.signs === null
            ? `${policyWords}; ${spfWords}, so DMARC passes only if the mail carries a DKIM signature of ${fromDomain} (${dkimWords}).`
            : `${policyWords}; ${spfWords}, and ${dkimWords}: whether DMARC passes rests on SPF.`,
          spf.passes === null ? 'Try the check again in a moment.' : alignAdvice,
        ),
      );
    } else {
      items.push(
        domainItem(
          'dmarc',
          'DMARC',
          isEnforcing ? 'fail' : 'warn',
          `${policyWords}; ${spfWords}, and ${dkimWords}: DMARC fails${
            isEnforcing
              ? `, so receivers ${dmarc.policy === 'reject' ? 'refuse' : 'put in spam'} this mail.`
              : ', which receivers only report for now.'
          }`,
          alignAdvice,
        ),
      );
    }
  }
  items.push(
    domainItem(
      'bulk-rules',
      'Gmail and Yahoo bulk-sender rules',
      isBulk && !dmarc ? 'fail' : 'pass',
      `One-click unsubscribe (RFC 8058) is in every message Sendwell sends. ${
        isBulk
          ? `This send reaches ${counted(audience, { one: 'address', other: 'addresses' })}: from ${BULK_SENDER_DAILY.toLocaleString('en-US')} a day Gmail and Yahoo require DMARC${dmarc ? ', which is published' : ', which is missing'}.`
          : `Under ${BULK_SENDER_DAILY.toLocaleString('en-US')} a day DMARC is recommended, not required.`
      }`,
      isBulk && !dmarc ? `Publish a DMARC record at _dmarc.${fromDomain} before sending this many.` : null,
    ),
  );
  return items;
};
