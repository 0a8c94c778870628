import net from 'node:net';
import type { TSpamCheck } from '@sendwell/contracts';
import type { authenticate } from 'mailauth';
import { check } from './message-checks';

/**
 * What the spam test asks DNS as a receiver would: the authentication findings (SPF, DKIM,
 * DMARC with its alignment, ARC, read from mailauth's result) with the ceiling an enforcing
 * DMARC policy puts on a failing message, and the sending address on the DNS blocklists.
 */

export type TResolve = (name: string, type: string) => Promise<unknown>;

type TStatus = TSpamCheck['status'];

/** A finding of one authentication method, titled by its name (SPF, DKIM, DMARC, ARC). */
const methodFinding =
  (method: 'spf' | 'dkim' | 'dmarc' | 'arc') =>
  (status: TStatus, penalty: number, detail: string, advice: string | null = null) =>
    check('authentication', method, method.toUpperCase(), status, penalty, detail, advice);
const spfFinding = methodFinding('spf');
const dkimFinding = methodFinding('dkim');
const dmarcFinding = methodFinding('dmarc');
const arcFinding = methodFinding('arc');

export type TMailauthResult = Awaited<ReturnType<typeof authenticate>>;

/**
 * The highest score of a message that fails DMARC under an enforcing policy: receivers that
 * honour it put the message in spam (quarantine) or refuse it (reject), whatever else is
 * right with it, so such a message is in the lowest band, a refusal below a spam folder.
 */
const DMARC_CEILING_TENTHS = { quarantine: 49, reject: 39 } as const;

/** What DMARC's policy does to the score: the ceiling of a failing message under an enforcing policy. */
export const dmarcCeilingOf = (auth: TMailauthResult | null): number | null => {
  const dmarc = (auth?.dmarc || undefined) as { status?: { result?: string }; p?: string; policy?: string } | undefined;
  if (dmarc?.status?.result !== 'fail') return null;
  const policy = dmarc.policy || dmarc.p;
  return policy === 'reject' || policy === 'quarantine' ? DMARC_CEILING_TENTHS[policy] : null;
};

export const authenticationChecks = (auth: TMailauthResult | null, fromDomain: string, ip: string): TSpamCheck[] => {
  if (!auth) {
    return [
      check(
        'authentication',
        'auth-error',
        'Authentication',
        'warn',
        1,
        'The message could not be checked for SPF, DKIM and DMARC.',
      ),
    ];
  }
  const checks: TSpamCheck[] = [];

  const spf = (auth.spf || undefined) as
    | { domain?: string; status?: { result?: string; comment?: string } }
    | undefined;
  const spfResult = spf?.status?.result || 'none';
  const spfDomain = spf?.domain || fromDomain;
  const spfAdvice = `Add ${ip} to the SPF record of ${spfDomain} (a TXT record such as "v=spf1 ip4:${ip} include:… ~all"), or send through the server it names.`;
  if (spfResult === 'pass') {
    checks.push(spfFinding('pass', 0, `${ip} may send for ${spfDomain}.`));
  } else if (spfResult === 'fail') {
    checks.push(spfFinding('fail', 2, `${spfDomain}'s SPF record does not allow ${ip}.`, spfAdvice));
  } else if (spfResult === 'softfail') {
    checks.push(spfFinding('warn', 0.7, `${spfDomain}'s SPF record marks ${ip} as suspect (~all).`, spfAdvice));
  } else if (spfResult === 'none') {
    checks.push(
      spfFinding(
        'fail',
        1.5,
        `${spfDomain} has no SPF record.`,
        `Add an SPF record: a TXT record on ${spfDomain} such as "v=spf1 ip4:${ip} ~all".`,
      ),
    );
  } else {
    checks.push(
      spfFinding(
        'warn',
        spfResult === 'permerror' ? 1.5 : 0.5,
        `SPF ${spfResult}: ${spf?.status?.comment || 'the record could not be read'}.`,
        spfResult === 'permerror' ? `Fix the SPF record of ${spfDomain}: receivers cannot read it.` : null,
      ),
    );
  }

  type TDkimRow = {
    signingDomain?: string;
    selector?: string;
    status?: { result?: string; comment?: string; aligned?: string | false };
  };
  const signatures = ((auth.dkim as { results?: TDkimRow[] }).results ?? []).filter(
    (row) => row.status?.result !== 'none' || row.signingDomain,
  );
  const passing = signatures.filter((row) => row.status?.result === 'pass');
  const aligned = passing.find((row) => row.status?.aligned);
  const dkimAdvice = `Sign mail for ${fromDomain} with DKIM: publish the key your sending service gives you as a TXT record at <selector>._domainkey.${fromDomain}.`;
  if (aligned) {
    checks.push(
      dkimFinding(
        'pass',
        0,
        `Signed by ${aligned.signingDomain} (selector ${aligned.selector}), which matches the From domain.`,
      ),
    );
  } else if (passing.length > 0) {
    checks.push(
      dkimFinding(
        'warn',
        0.5,
        `Signed by ${passing.map((row) => row.signingDomain).join(', ')}, not by the From domain ${fromDomain}.`,
        dkimAdvice,
      ),
    );
  } else if (signatures.length > 0 && signatures.every((row) => row.status?.result === 'temperror')) {
    // The key could not be fetched (DNS did not answer in time): not the sender's fault yet.
    const unchecked = signatures[0]!;
    checks.push(
      dkimFinding(
        'warn',
        0.5,
        `The signature of ${unchecked.signingDomain ?? 'an unknown domain'} could not be checked: its key at ${unchecked.selector ?? '<selector>'}._domainkey.${unchecked.signingDomain ?? fromDomain} did not answer (${unchecked.status?.comment ?? 'temporary DNS error'}).`,
        'Run the test again; if it repeats, check the DNS servers of the signing domain.',
      ),
    );
  } else if (signatures.length > 0) {
    const failed = signatures[0]!;
    checks.push(
      dkimFinding(
        'fail',
        2,
        `The signature of ${failed.signingDomain ?? 'an unknown domain'} does not verify (${failed.status?.result}: ${failed.status?.comment ?? 'no reason given'}).`,
        `Something changed the message after it was signed, or the key at ${failed.selector ?? '<selector>'}._domainkey.${failed.signingDomain ?? fromDomain} is not the one it was signed with.`,
      ),
    );
  } else {
    checks.push(dkimFinding('fail', 1.5, 'The message is not signed with DKIM.', dkimAdvice));
  }

  const dmarc = (auth.dmarc || undefined) as
    | { status?: { result?: string; comment?: string }; p?: string; policy?: string }
    | undefined;
  const dmarcResult = dmarc?.status?.result || 'none';
  if (dmarcResult === 'pass') {
    checks.push(
      dmarcFinding(
        'pass',
        0,
        `The From domain ${fromDomain} is aligned with SPF or DKIM (policy ${dmarc?.p || 'none'}).`,
      ),
    );
  } else if (dmarcResult === 'fail') {
    const policy = dmarc?.policy || dmarc?.p || 'none';
    checks.push(
      dmarcFinding(
        'fail',
        policy === 'reject' ? 3 : policy === 'quarantine' ? 2 : 1,
        `Neither SPF nor DKIM passes for ${fromDomain}; its DMARC policy is "${policy}"${policy === 'reject' ? `: receivers refuse such mail, so the score is held below ${(DMARC_CEILING_TENTHS.reject + 1) / 10}` : policy === 'quarantine' ? `: receivers put such mail in spam, so the score is held below ${(DMARC_CEILING_TENTHS.quarantine + 1) / 10}` : ''}.`,
        `Make SPF or DKIM pass for ${fromDomain} itself (a signature with d=${fromDomain}, or a return path at ${fromDomain}).`,
      ),
    );
  } else if (dmarcResult === 'none') {
    checks.push(
      dmarcFinding(
        'warn',
        0.5,
        `${fromDomain} publishes no DMARC policy.`,
        `Publish one: a TXT record at _dmarc.${fromDomain} such as "v=DMARC1; p=none; rua=mailto:dmarc@${fromDomain}". Gmail and Yahoo require it of bulk senders.`,
      ),
    );
  } else {
    checks.push(
      dmarcFinding('warn', 0.5, `DMARC ${dmarcResult}: ${dmarc?.status?.comment || 'the policy could not be read'}.`),
    );
  }

  const arc = (auth.arc || undefined) as { status?: { result?: string } } | undefined;
  const arcResult = arc?.status?.result || 'none';
  checks.push(
    arcResult === 'fail'
      ? arcFinding('warn', 0.5, 'The ARC chain of a forwarder does not verify.')
      : arcFinding('info', 0, arcResult === 'pass' ? 'A valid ARC chain.' : 'No ARC chain (only forwarders add one).'),
  );
  return checks;
};

const isPublicAddress = (ip: string) => {
  if (net.isIPv4(ip)) {
    const [a, b] = ip.split('.').map(Number) as [number, number];
    return !(
      a === 10 ||
      a === 127 ||
      a === 0 ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 100 && b >= 64 && b <= 127)
    );
  }
  if (net.isIPv6(ip)) return !/^(::1$|fe80:|fc|fd|::ffff:(127|10|192\.168)\.)/i.test(ip);
  return false;
};

export const blocklistChecks = async (ip: string, zones: string[], resolve: TResolve): Promise<TSpamCheck[]> => {
  if (zones.length === 0)
    return [check('blocklists', 'dnsbl', 'Blocklists', 'info', 0, 'No blocklists configured (SPAM_TEST_DNSBL).')];
  if (!net.isIPv4(ip) || !isPublicAddress(ip)) {
    return [
      check(
        'blocklists',
        'dnsbl',
        'Blocklists',
        'info',
        0,
        `Not looked up: ${ip || 'the sender'} is not a public IPv4 address.`,
      ),
    ];
  }
  const reversed = ip.split('.').reverse().join('.');
  const answers = await Promise.all(
    zones.map(async (zone) => {
      try {
        const found = (await resolve(`${reversed}.${zone}`, 'A')) as string[];
        // 127.255.255.x answers mean "refused" (e.g. Spamhaus through a public resolver), not "listed".
        const listed = found.filter((answer) => answer.startsWith('127.') && !answer.startsWith('127.255.255.'));
        return { zone, listed: listed.length > 0, failed: listed.length === 0 && found.length > 0 };
      } catch (error) {
        const code = (error as { code?: string }).code;
        return { zone, listed: false, failed: code !== 'ENOTFOUND' && code !== 'ENODATA' };
      }
    }),
  );
  return answers.map(({ zone, listed, failed }, index) =>
    listed
      ? check(
          'blocklists',
          `dnsbl-${index}`,
          zone,
          'fail',
          1.5,
          `${ip} is listed on ${zone}.`,
          `Ask your sending service about ${ip}, or request delisting at ${zone}'s site.`,
        )
      : failed
        ? check('blocklists', `dnsbl-${index}`, zone, 'info', 0, `${zone} could not be asked.`)
        : check('blocklists', `dnsbl-${index}`, zone, 'pass', 0, `${ip} is not listed on ${zone}.`),
  );
};
