import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { HttpError } from './errors';

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
  ['::', 128],
  ['::1', 128],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv6');
}
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

export const UNREACHABLE_HOST_MESSAGE =
  'Sendwell cannot connect to this host: it is a local or private network address. Use the public name of your mail server.';

/** `::ffff:127.0.0.1`, `::ffff:7f00:1` and `::127.0.0.1` are IPv4 addresses in IPv6 dress. */
const embeddedIpv4 = (address: string): string | null => {
  const lower = address.toLowerCase();
  const dotted = lower.match(/^::(?:ffff:)?(\d+\.\d+\.\d+\.\d+)$/);
  if (dotted) return dotted[1]!;
  const hex = lower.match(/^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/);
  if (!hex) return null;
  const high = Number.parseInt(hex[1]!, 16);
  const low = Number.parseInt(hex[2]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
};

export const isPrivateAddress = (address: string): boolean => {
  const v4 = isIP(address) === 4 ? address : embeddedIpv4(address);
  if (v4) return PRIVATE.check(v4, 'ipv4');
  return PRIVATE.check(address, 'ipv6');
};

const isLoopback = (address: string): boolean => {
  const v4 = isIP(address) === 4 ? address : embeddedIpv4(address);
  return v4 ? LOOPBACK.check(v4, 'ipv4') : LOOPBACK.check(address, 'ipv6');
};

/**
 * Resolves a host a user typed and answers the address to connect to, refusing every
 * local, private or metadata address (QUALITY R14). All resolved addresses must be
 * public, and the caller connects to the one returned, so a DNS answer cannot change
 * between this check and the connection. The refusal never depends on whether anything
 * listens there. `allowLoopback` is the operator's switch for local development and the
 * built-in test inbox.
 */
export const resolvePublicHost = async (host: string, { allowLoopback }: { allowLoopback: boolean }) => {
  const bare = host.trim().replace(/^\[|\]$/g, '');
  let addresses: { address: string }[];
  try {
    addresses = await lookup(bare, { all: true, verbatim: true });
  } catch {
    throw new HttpError(422, `The host ${host} could not be found. Check its spelling.`, 'HOST_NOT_FOUND');
  }
  if (addresses.length === 0) throw new HttpError(422, `The host ${host} could not be found.`, 'HOST_NOT_FOUND');
  for (const { address } of addresses) {
    if (allowLoopback && isLoopback(address)) continue;
    if (isPrivateAddress(address)) throw new HttpError(422, UNREACHABLE_HOST_MESSAGE, 'HOST_NOT_ALLOWED');
  }
  return addresses[0]!.address;
};
