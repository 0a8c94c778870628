import { Resolver } from 'node:dns/promises';
import dns2 from 'dns2';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../test/cluster';
import { precheck, type TEngineOptions, verifyAddresses } from './engine';

const { Packet } = dns2;

/** Domain → its records on the local DNS server. */
const ZONE: Record<string, { mx?: string[]; a?: string[] }> = {
  'accept.test': { mx: ['mx.local.test'] },
  'reject.test': { mx: ['mx.local.test'] },
  'catchall.test': { mx: ['mx.local.test'] },
  'grey.test': { mx: ['mx.local.test'] },
  'slow.test': { mx: ['mx.local.test'] },
  'drop.test': { mx: ['mx.local.test'] },
  'afallback.test': { a: ['127.0.0.1'] },
  'nullmx.test': { mx: ['.'] },
  'deadmx.test': { mx: ['dead.local.test'] },
  'mx.local.test': { a: ['127.0.0.1'] },
  'dead.local.test': { a: ['127.0.0.2'] },
};

let dnsServer: ReturnType<typeof dns2.createServer>;
let dnsPort: number;
let smtp: SMTPServer;
let smtpPort: number;
const greyAttempts = new Map<string, number>();

beforeAll(async () => {
  dnsPort = await freePort();
  dnsServer = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      const [question] = request.questions;
      const zone = ZONE[question!.name.toLowerCase()];
      if (!zone) {
        response.header.rcode = 3; // NXDOMAIN
      } else if (question!.type === Packet.TYPE.MX) {
        for (const [index, exchange] of (zone.mx ?? []).entries()) {
          response.answers.push(<never>{
            name: question!.name,
            type: Packet.TYPE.MX,
            class: Packet.CLASS.IN,
            ttl: 60,
            priority: 10 + index,
            exchange: exchange === '.' ? '' : exchange,
          });
        }
      } else if (question!.type === Packet.TYPE.A) {
        for (const address of zone.a ?? []) {
          response.answers.push(<never>{
            name: question!.name,
            type: Packet.TYPE.A,
            class: Packet.CLASS.IN,
            ttl: 60,
            address,
          });
        }
      }
      send(response);
    },
  });
  await dnsServer.listen({ udp: { port: dnsPort, address: '127.0.0.1' } });

  smtpPort = await freePort();
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo: (address, session, callback) => {
      const [local, domain] = address.address.toLowerCase().split('@') as [string, string];
      const refuse = (code: number, text: string) => callback(Object.assign(new Error(text), { responseCode: code }));
      if (domain === 'accept.test' || domain === 'afallback.test') {
        return local === 'ann' ? callback() : refuse(550, '5.1.1 No such user');
      }
      if (domain === 'reject.test') return refuse(550, '5.1.1 Recipient address rejected: User unknown');
      if (domain === 'catchall.test') return callback();
      if (domain === 'grey.test') {
        const seen = (greyAttempts.get(address.address) ?? 0) + 1;
        greyAttempts.set(address.address, seen);
        return seen === 1
          ? refuse(450, '4.7.1 Greylisted, try again later')
          : local === 'ann'
            ? callback()
            : refuse(550, 'No such user');
      }
      if (domain === 'slow.test') return setTimeout(() => callback(), 2_000);
      if (domain === 'drop.test') {
        const connections = (smtp as unknown as { connections: Set<{ id: string; _socket: { destroy: () => void } }> })
          .connections;
        for (const connection of connections) if (connection.id === session.id) connection._socket.destroy();
        return;
      }
      return refuse(550, 'No such domain here');
    },
  });
  smtp.on('error', () => {});
  await new Promise<void>((resolve) => smtp.listen(smtpPort, '127.0.0.1', resolve));
});
afterAll(async () => {
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
  await dnsServer.close();
});

const options = (): TEngineOptions => {
  const resolver = new Resolver({ timeout: 1_000, tries: 1 });
  resolver.setServers([`127.0.0.1:${dnsPort}`]);
  return {
    resolver,
    port: smtpPort,
    heloName: 'verify.sendwell.test',
    mailFrom: 'verify@sendwell.test',
    stepTimeoutMs: 700,
    greylistRetries: 2,
    greylistDelayMs: 50,
    concurrency: 4,
    perConnection: 20,
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
    expect(byEmail['ann@accept.test']).toMatchObject({ verdict: 'valid', mx: 'mx.local.test' });
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
    expect(greyAttempts.get('ann@grey.test')).toBe(2);
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

  it('suggests the intended domain for common typos and flags free providers', () => {
    expect(precheck('ann@gmial.com', new Set())).toMatchObject({
      suggestion: 'ann@gmail.com',
      flags: expect.objectContaining({ freeProvider: false }),
    });
    expect(precheck('ann@hotmial.com', new Set())).toMatchObject({ suggestion: 'ann@hotmail.com' });
    expect(precheck('ann@gmail.com', new Set())).toMatchObject({
      suggestion: null,
      flags: expect.objectContaining({ freeProvider: true }),
    });
  });
});
