import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import os from 'node:os';
import { HttpError } from './errors';

/**
 * The one guard every outbound connection made on a user's word goes through (DESIGN §7,
 * R14, R35): SMTP accounts' hosts and the verification probe's mail servers. A host is
 * resolved once, every address it resolves to must be public, and the caller connects to
 * the address answered, so a DNS answer cannot change between the check and the connection.
 */

/** Loopback, private, link-local, shared, documentation, multicast and metadata ranges. */
const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  // IPv4-compatible (deprecated), `::` and `::1` among them.
  ['::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv6');
}
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

export const UNREACHABLE_HOST_MESSAGE =
  'Sendwell cannot connect to this host: it is a local or private network address. Use the public name of your mail server.';

/** An IPv6 address as its eight 16-bit groups, or null (`::` and a trailing dotted quad allowed). */
const hextetsOf = (address: string): number[] | null => {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const quad = text.match(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16)));
  const front = groups(head);
  const back = tail === undefined ? [] : groups(tail);
  const missing = 8 - front.length - back.length;
  if (missing < 0 || (tail === undefined && missing !== 0)) return null;
  const all = [...front, ...Array<number>(missing).fill(0), ...back];
  return all.every((group) => Number.isInteger(group) && group >= 0 && group <= 0xffff) ? all : null;
};

const quadOf = (high: number, low: number) => [high >> 8, high & 255, low >> 8, low & 255].join('.');

/**
 * The IPv4 address an IPv6 one carries to an IPv4 host: mapped (`::ffff:127.0.0.1`,
 * `::ffff:7f00:1`), IPv4-compatible (`::127.0.0.1`), NAT64 (`64:ff9b::7f00:1`) and 6to4
 * (`2002:7f00:1::`). Such an address reaches the IPv4 one, so the IPv4 rules apply to it.
 */
const embeddedIpv4 = (address: string): string | null => {
  const groups = hextetsOf(address);
  if (!groups) return null;
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number];
  const isZero = (...values: number[]) => values.every((value) => value === 0);
  if (isZero(g0, g1, g2, g3, g4) && (g5 === 0xffff || g5 === 0)) return quadOf(g6, g7);
  if (g0 === 0x64 && g1 === 0xff9b && isZero(g2, g3, g4, g5)) return quadOf(g6, g7);
  if (g0 === 0x2002) return quadOf(g1, g2);
  return null;
};

const ipv4Of = (address: string) => (isIP(address) === 4 ? address : embeddedIpv4(address));

export const isPrivateAddress = (address: string): boolean => {
  const v4 = ipv4Of(address);
  if (v4 && PRIVATE.check(v4, 'ipv4')) return true;
  return isIP(address) === 6 && PRIVATE.check(address, 'ipv6');
};

const isLoopback = (address: string): boolean => {
  const v4 = ipv4Of(address);
  return (v4 !== null && LOOPBACK.check(v4, 'ipv4')) || (isIP(address) === 6 && LOOPBACK.check(address, 'ipv6'));
};

/** This machine's own addresses (a public one on an interface reaches this server itself). */
let ownAddresses: { set: Set<string>; readAt: number } | null = null;
const OWN_ADDRESSES_TTL_MS = 60_000;
const isOwnAddress = (address: string) => {
  if (!ownAddresses || Date.now() - ownAddresses.readAt > OWN_ADDRESSES_TTL_MS) {
    const set = new Set<string>();
    for (const entries of Object.values(os.networkInterfaces())) {
      for (const entry of entries ?? []) set.add(entry.address.toLowerCase().replace(/%.*$/, ''));
    }
    ownAddresses = { set, readAt: Date.now() };
  }
  const v4 = ipv4Of(address);
  return ownAddresses.set.has(address.toLowerCase()) || (v4 !== null && ownAddresses.set.has(v4));
};

/**
 * Whether a connection may go to this address on a user's word: not loopback (unless the
 * operator allows it, for local development and tests), private, link-local, metadata,
 * unique-local, multicast or documentation, in any spelling, and not this machine's own.
 */
export const isAllowedAddress = (address: string, { allowLoopback }: { allowLoopback: boolean }) => {
  if (isLoopback(address)) return allowLoopback;
  return !isPrivateAddress(address) && !isOwnAddress(address);
};

/** How a host name becomes its addresses: the system's resolver, or a configured DNS server. */
export type THostLookup = (host: string) => Promise<string[]>;

const systemLookup: THostLookup = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * Resolves a host a user gave (or a mail server a user's domain names) and answers the
 * address to connect to, refusing every local, private or metadata address (R14, R35). All
 * resolved addresses must be allowed, and the caller connects to the one returned, so a DNS
 * answer cannot change between this check and the connection. The refusal never depends
 * on whether anything listens there. An IP literal is taken as it is; a name goes through
 * `lookup` (the system's by default; the verifier passes its configured resolver).
 */
export const resolvePublicHost = async (
  host: string,
  { allowLoopback, lookup: resolve = systemLookup }: { allowLoopback: boolean; lookup?: THostLookup },
) => {
  const bare = host.trim().replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(bare) ? [bare] : await resolve(bare);
  } catch {
    throw new HttpError(422, `The host ${host} could not be found. Check its spelling.`, 'HOST_NOT_FOUND');
  }
  if (addresses.length === 0) throw new HttpError(422, `The host ${host} could not be found.`, 'HOST_NOT_FOUND');
  for (const address of addresses) {
    if (!isAllowedAddress(address, { allowLoopback })) {
      throw new HttpError(422, UNREACHABLE_HOST_MESSAGE, 'HOST_NOT_ALLOWED');
    }
  }
  return addresses[0]!;
};
