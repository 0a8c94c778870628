import { describe, expect, it } from 'vitest';
import { isPrivateAddress, resolvePublicHost, UNREACHABLE_HOST_MESSAGE } from './network-guard';

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
    ]) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
    for (const address of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
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
});
