import os from 'node:os';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isAllowedAddress, isPrivateAddress, resolvePublicHost, UNREACHABLE_HOST_MESSAGE } from './network-guard';

describe('the network guard (R14)', () => {
  it('knows private, loopback, link-local and metadata addresses in every spelling', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fe80::1',
      'fd00:ec2::254',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:169.254.169.254',
      // IPv4 in other IPv6 dress: IPv4-compatible, NAT64 and 6to4 forms of private addresses.
      '::7f00:1',
      '64:ff9b::a9fe:a9fe',
      '64:ff9b::10.0.0.1',
      '2002:c0a8:0101::1',
      'fec0::1',
    ]) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
    for (const address of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808']) {
      expect(isPrivateAddress(address), address).toBe(false);
    }
  });

  it('refuses hosts that resolve to them, decimal and hex IPs included, with one message', async () => {
    for (const host of [
      '127.0.0.1',
      'localhost',
      '169.254.169.254',
      '2130706433',
      '0x7f000001',
      '[::1]',
      '::ffff:127.0.0.1',
    ]) {
      await expect(resolvePublicHost(host, { allowLoopback: false }), host).rejects.toMatchObject({
        message: UNREACHABLE_HOST_MESSAGE,
      });
    }
  });

  it('lets loopback through only when the operator allows it, and never other private ranges', async () => {
    expect(await resolvePublicHost('127.0.0.1', { allowLoopback: true })).toBe('127.0.0.1');
    await expect(resolvePublicHost('169.254.169.254', { allowLoopback: true })).rejects.toMatchObject({
      message: UNREACHABLE_HOST_MESSAGE,
    });
    await expect(resolvePublicHost('10.0.0.1', { allowLoopback: true })).rejects.toMatchObject({
      message: UNREACHABLE_HOST_MESSAGE,
    });
  });

  it('answers a clear error for a host that does not resolve', async () => {
    await expect(resolvePublicHost('no-such-host.invalid', { allowLoopback: false })).rejects.toMatchObject({
      code: 'HOST_NOT_FOUND',
    });
  });

  it('refuses the server’s own addresses, even public ones, and lets loopback through only when allowed', () => {
    vi.spyOn(os, 'networkInterfaces').mockReturnValue({
      eth0: [
        {
          address: '93.184.215.14',
          netmask: '255.255.255.0',
          family: 'IPv4',
          mac: '00:00:00:00:00:01',
          internal: false,
          cidr: '93.184.215.14/24',
        },
      ],
    });
    vi.setSystemTime(Date.now() + 120_000); // past the cached interface list
    expect(isAllowedAddress('93.184.215.14', { allowLoopback: true })).toBe(false);
    expect(isAllowedAddress('::ffff:93.184.215.14', { allowLoopback: true })).toBe(false);
    expect(isAllowedAddress('93.184.215.15', { allowLoopback: false })).toBe(true);
    expect(isAllowedAddress('127.0.0.1', { allowLoopback: true })).toBe(true);
    expect(isAllowedAddress('::1', { allowLoopback: true })).toBe(true);
    expect(isAllowedAddress('127.0.0.1', { allowLoopback: false })).toBe(false);
  });

  it('resolves a name through the lookup it is given (the verifier’s DNS server), once, and answers the address checked', async () => {
    const asked: string[] = [];
    const lookup = async (host: string) => {
      asked.push(host);
      return host === 'mx.public.test' ? ['93.184.215.20'] : ['93.184.215.21', '10.0.0.7'];
    };
    expect(await resolvePublicHost('mx.public.test', { allowLoopback: false, lookup })).toBe('93.184.215.20');
    // One private address among public ones is enough to refuse the host.
    await expect(resolvePublicHost('mx.mixed.test', { allowLoopback: false, lookup })).rejects.toMatchObject({
      code: 'HOST_NOT_ALLOWED',
    });
    // An IP literal is not looked up.
    await expect(resolvePublicHost('169.254.169.254', { allowLoopback: true, lookup })).rejects.toMatchObject({
      code: 'HOST_NOT_ALLOWED',
    });
    expect(asked).toEqual(['mx.public.test', 'mx.mixed.test']);
  });
});

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});
