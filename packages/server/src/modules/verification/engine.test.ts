import { Resolver } from 'node:dns/promises';
import { VERIFY_MESSAGES } from '@sendwell/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVerifyPeers } from '../../../test/verify-peers';
import { PATIENCE_MS, waitFor } from '../../../test/wait';
import { createLocalSlots } from '../../platform/shared-slots';
import { precheck, type TEngineOptions, verifyAddresses } from './engine';

let peers: Awaited<ReturnType<typeof startVerifyPeers>>;
beforeAll(async () => {
  peers = await startVerifyPeers();
});
afterAll(async () => peers?.close());

const options = (): TEngineOptions => {
  const resolver = new Resolver({ timeout: 1_000, tries: 1 });
  resolver.setServers([`127.0.0.1:${peers.dnsPort}`]);
  return {
    resolver,
    port: peers.smtpPort,
    heloName: 'verify.sendwell.test',
    mailFrom: 'verify@sendwell.test',
    stepTimeoutMs: 700,
    greylistRetries: 2,
    greylistDelayMs: 50,
    concurrency: 4,
    perConnection: 20,
    connectionsPerServer: 2,
    slots: createLocalSlots(),
    allowLoopback: true,
    roleNames: new Set(['info', 'admin', 'sales']),
  };
};

describe('the verification engine against a local DNS server and SMTP peers', () => {
  it('gives valid, invalid and unknown verdicts with reasons and flags, as a paid verifier does', async () => {
    const results = await verifyAddresses(
      [
        'ann@accept.test',
        'bob@accept.test',
        'nobody@reject.test',
        'whoever@catchall.test',
        'ann@grey.test',
        'ann@slow.test',
        'ann@drop.test',
        'ann@afallback.test',
        'ann@nullmx.test',
        'ann@nowhere.test',
        'ann@deadmx.test',
        'info@accept.test',
        'someone@mailinator.com',
        'not an address',
      ],
      options(),
    );
    const byEmail = Object.fromEntries(results.map((result) => [result.email, result]));
    expect(byEmail['ann@accept.test']).toMatchObject({ verdict: 'valid', mx: 'mx.accept.test' });
    expect(byEmail['bob@accept.test']).toMatchObject({ verdict: 'invalid', reason: expect.stringContaining('550') });
    expect(byEmail['nobody@reject.test']).toMatchObject({
      verdict: 'invalid',
      reason: expect.stringContaining('User unknown'),
    });
    expect(byEmail['whoever@catchall.test']).toMatchObject({
      verdict: 'unknown',
      flags: expect.objectContaining({ catchAll: true }),
    });
    // Greylisted once, then asked again and accepted.
    expect(byEmail['ann@grey.test']).toMatchObject({ verdict: 'valid' });
    expect(peers.greyAttempts.get('ann@grey.test')).toBe(2);
    expect(byEmail['ann@slow.test']).toMatchObject({
      verdict: 'unknown',
      reason: expect.stringContaining('did not answer'),
    });
    expect(byEmail['ann@drop.test']).toMatchObject({ verdict: 'unknown' });
    expect(byEmail['ann@afallback.test']).toMatchObject({ verdict: 'valid', mx: 'afallback.test' });
    expect(byEmail['ann@nullmx.test']).toMatchObject({
      verdict: 'invalid',
      reason: expect.stringContaining('null MX'),
    });
    expect(byEmail['ann@nowhere.test']).toMatchObject({
      verdict: 'invalid',
      reason: expect.stringContaining('no mail server'),
    });
    // A server that cannot be reached (port 25 blocked, or down) is unknown, never invalid.
    expect(byEmail['ann@deadmx.test']).toMatchObject({
      verdict: 'unknown',
      reason: expect.stringContaining('could be reached'),
    });
    expect(byEmail['info@accept.test']).toMatchObject({ flags: expect.objectContaining({ role: true }) });
    expect(byEmail['someone@mailinator.com']).toMatchObject({
      verdict: 'invalid',
      flags: expect.objectContaining({ disposable: true }),
    });
    expect(results.at(-1)).toMatchObject({ verdict: 'invalid', email: 'not an address' });
    expect(results).toHaveLength(14);
  }, 30_000);

  it('hands each verdict over as it comes, asks greylisted addresses again after the others, and gives up on a slow server after two timeouts', async () => {
    const order: string[] = [];
    const slow = Array.from({ length: 6 }, (_, index) => `s${index}@slow.test`);
    const results = await verifyAddresses(
      ['bob@grey.test', ...slow, 'ann@accept.test'],
      { ...options(), concurrency: 3, connectionsPerServer: 1, greylistDelayMs: 500 },
      (_index, result) => order.push(result.email),
    );
    // Every address once; the accepting domain is not held up by the slow one or the greylisting pause.
    expect([...order].sort()).toEqual(results.map((result) => result.email).sort());
    expect(order.indexOf('ann@accept.test')).toBeLessThan(order.indexOf('bob@grey.test'));
    const byEmail = Object.fromEntries(results.map((result) => [result.email, result]));
    // Greylisted at first, then answered for real on the second try.
    expect(peers.greyAttempts.get('bob@grey.test')).toBe(2);
    expect(byEmail['bob@grey.test']).toMatchObject({ verdict: 'invalid' });
    const slowReasons = slow.map((email) => byEmail[email]!.reason);
    expect(slowReasons.filter((reason) => reason.includes('stopped answering'))).toHaveLength(2);
    expect(slowReasons.filter((reason) => reason.includes('too slow to answer'))).toHaveLength(4);
    expect(results.every((result) => !result.email.endsWith('@slow.test') || result.verdict === 'unknown')).toBe(true);
  }, 30_000);

  it('suggests the intended domain for common typos and flags free providers', () => {
    expect(precheck('ann@gmial.com', new Set())).toMatchObject({
      suggestion: 'ann@gmail.com',
      flags: expect.objectContaining({ freeProvider: false }),
    });
    expect(precheck('ann@hotmial.com', new Set())).toMatchObject({ suggestion: 'ann@hotmail.com' });
    expect(precheck('ann@company.io', new Set())).toMatchObject({ suggestion: null });
    expect(precheck('ann@gmail.com', new Set())).toMatchObject({
      suggestion: null,
      flags: expect.objectContaining({ freeProvider: true }),
    });
  });
});

describe('the probe’s reach (R35) and its connections per mail server (R36)', () => {
  it('never connects to a mail server on a private network, the metadata address, an IPv4-mapped literal or this machine’s own address', async () => {
    const before = { total: peers.connections.total, own: peers.connections.toOwnAddress };
    const results = await verifyAddresses(
      ['ann@private.test', 'ann@metadata.test', 'ann@mixed.test', 'ann@mapped.test', 'ann@own.test', 'ann@backup.test'],
      options(),
    );
    const byEmail = Object.fromEntries(results.map((result) => [result.email, result]));
    for (const email of [
      'ann@private.test',
      'ann@metadata.test',
      'ann@mixed.test',
      'ann@mapped.test',
      'ann@own.test',
    ]) {
      // Unknown (refunded), with a reason that shows nothing of what is behind the address.
      expect(byEmail[email], email).toMatchObject({ verdict: 'unknown', reason: VERIFY_MESSAGES.notPublic, mx: null });
      expect(byEmail[email]!.unreachable, email).toBeFalsy();
    }
    // A private first choice is skipped, and the next server asked.
    expect(byEmail['ann@backup.test']).toMatchObject({ verdict: 'valid', mx: 'mx.backup.test' });
    expect(peers.connections.total - before.total).toBe(1);
    expect(peers.connections.toOwnAddress - before.own).toBe(0);
  });

  it('reaches loopback only when the operator allows it', async () => {
    const before = peers.connections.total;
    const [refused] = await verifyAddresses(['ann@accept.test'], { ...options(), allowLoopback: false });
    expect(refused).toMatchObject({ verdict: 'unknown', reason: VERIFY_MESSAGES.notPublic, mx: null });
    expect(peers.connections.total).toBe(before);
  });

  it('holds connections to one mail server to the limit across the domains it serves, and lets other domains go on meanwhile', async () => {
    const shared = (domain: string, count: number) =>
      Array.from({ length: count }, (_, index) => `ok${index}@${domain}`);
    const closed = () =>
      waitFor(() => (peers.connections.openByServer.get('mx.shared.test') ?? 0) === 0, PATIENCE_MS, 'closed');
    await closed();
    peers.connections.reset();
    const results = await verifyAddresses([...shared('shared-a.test', 12), ...shared('shared-b.test', 12)], {
      ...options(),
      perConnection: 3,
    });
    expect(results.every((result) => result.verdict === 'valid')).toBe(true);
    // Each domain alone would have asked on two connections: four at once without the server's limit.
    expect(peers.connections.maxByServer.get('mx.shared.test')).toBe(2);

    // The first run's connections are closed on the server's side before counting again.
    await closed();
    peers.connections.reset();
    const order: string[] = [];
    await verifyAddresses(
      [...shared('shared-a.test', 4), ...shared('shared-b.test', 4), 'ann@accept.test'],
      { ...options(), concurrency: 2, connectionsPerServer: 1 },
      (_index, result) => order.push(result.email),
    );
    expect(peers.connections.maxByServer.get('mx.shared.test')).toBe(1);
    // shared-b.test waited aside for its server; accept.test, on another server, did not wait for it.
    expect(order.indexOf('ann@accept.test')).toBeLessThan(order.findIndex((email) => email.endsWith('@shared-b.test')));
    expect(order).toHaveLength(9);
  }, 30_000);
});
