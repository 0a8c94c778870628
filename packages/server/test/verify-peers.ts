import net from 'node:net';
import os from 'node:os';
import { domainToASCII } from 'node:url';
import dns2 from 'dns2';
import { SMTPServer } from 'smtp-server';
import { freePort } from './cluster';
import { WELL_KNOWN_MX } from './dns-zone';

const { Packet } = dns2;

/**
 * What email verification talks to, on loopback: a DNS server (dns2) with MX and A records
 * for test domains, and one SMTP server whose answers depend on the domain asked about
 * (accepting, refusing, catch-all, greylisting, slow, dropping the line). Each domain has a
 * mail server name of its own, as real domains mostly do; `shared-a.test` and
 * `shared-b.test` share one (`mx.shared.test`), as domains hosted by one provider do.
 * Some names point where the verifier must never connect (R35): a private network, the
 * cloud metadata address, an IPv4-mapped IPv6 literal, and this machine's own address.
 * The SMTP server counts its connections (how many at once, at most, and by EHLO name).
 */
const own = (): string =>
  Object.values(os.networkInterfaces())
    .flat()
    .find((entry) => entry && entry.family === 'IPv4' && !entry.internal)?.address ?? '127.0.0.1';

/** Domain → its records on the local DNS server. */
const zone = (): Record<string, { mx?: string[]; a?: string[] }> => {
  const records: Record<string, { mx?: string[]; a?: string[] }> = {
    'afallback.test': { a: ['127.0.0.1'] },
    'nullmx.test': { mx: ['.'] },
    'deadmx.test': { mx: ['dead.local.test'] },
    'dead.local.test': { a: ['127.0.0.2'] },
    'shared-a.test': { mx: ['mx.shared.test'] },
    'shared-b.test': { mx: ['mx.shared.test'] },
    'mx.shared.test': { a: ['127.0.0.1'] },
    // Never to be connected to, whatever the operator allows for loopback.
    'private.test': { mx: ['mx.private.test'] },
    'mx.private.test': { a: ['10.20.30.40'] },
    'metadata.test': { mx: ['mx.metadata.test'] },
    'mx.metadata.test': { a: ['169.254.169.254'] },
    'mixed.test': { mx: ['mx.mixed.test'] },
    'mx.mixed.test': { a: ['127.0.0.1', '192.168.1.25'] },
    'mapped.test': { mx: ['::ffff:169.254.169.254'] },
    'own.test': { mx: ['mx.own.test'] },
    'mx.own.test': { a: [own()] },
    // A private first choice and a public-enough second one: the second is asked.
    'backup.test': { mx: ['mx.private.test', 'mx.backup.test'] },
    'mx.backup.test': { a: ['127.0.0.1'] },
    // Names that must exist (DNS_CANARY_NAMES): a resolver that does not find them is broken (R48).
    ...WELL_KNOWN_MX,
  };
  // müller.test, whose stored (A-label) form is what is looked up and asked about.
  for (const domain of ['accept', 'reject', 'catchall', 'grey', 'slow', 'drop', 'busy', 'hold', 'xn--mller-kva']) {
    records[`${domain}.test`] = { mx: [`mx.${domain}.test`] };
    records[`mx.${domain}.test`] = { a: ['127.0.0.1'] };
  }
  return records;
};

/** How long `busy.test` and `shared-*.test` take to answer each RCPT: connections overlap. */
const BUSY_ANSWER_MS = 60;
/** `hold.test` answers each RCPT this late: a conversation long enough to kill its worker in. */
const HOLD_ANSWER_MS = 1_500;

export const startVerifyPeers = async () => {
  const ZONE = zone();
  const greyAttempts = new Map<string, number>();
  const dnsPort = await freePort();
  const dnsServer = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      const [question] = request.questions;
      const records = ZONE[question!.name.toLowerCase()];
      if (!records) {
        response.header.rcode = 3; // NXDOMAIN
      } else if (question!.type === Packet.TYPE.MX) {
        for (const [index, exchange] of (records.mx ?? []).entries()) {
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
        for (const address of records.a ?? []) {
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

  const connections = {
    /** Open now, and the most open at once since the last reset. */
    open: 0,
    max: 0,
    total: 0,
    /** Connections to this machine's own (non-loopback) address. */
    toOwnAddress: 0,
    /** Connections by the EHLO name they gave (which worker process it was). */
    byHelo: new Map<string, number>(),
    /** The EHLO name of each connection open now, by session. */
    openHelos: new Map<string, string>(),
    /** Per mail server (the MX host of the domain a connection first asked about): open now, and most at once. */
    openByServer: new Map<string, number>(),
    maxByServer: new Map<string, number>(),
    serverOf: new Map<string, string>(),
    reset() {
      this.max = this.open;
      this.total = 0;
      this.byHelo.clear();
      this.maxByServer = new Map(this.openByServer);
    },
  };
  /** Counts a connection against its mail server once it asks about a first address. */
  const countServer = (sessionId: string, domain: string) => {
    if (connections.serverOf.has(sessionId)) return;
    const server = ZONE[domain]?.mx?.[0] ?? domain;
    connections.serverOf.set(sessionId, server);
    const open = (connections.openByServer.get(server) ?? 0) + 1;
    connections.openByServer.set(server, open);
    connections.maxByServer.set(server, Math.max(connections.maxByServer.get(server) ?? 0, open));
  };
  const smtpPort = await freePort();
  const smtp: SMTPServer = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onConnect: (_session, callback) => {
      connections.open += 1;
      connections.total += 1;
      connections.max = Math.max(connections.max, connections.open);
      callback();
    },
    onClose: (session) => {
      connections.open -= 1;
      connections.openHelos.delete(session.id);
      const server = connections.serverOf.get(session.id);
      if (server !== undefined) {
        connections.serverOf.delete(session.id);
        connections.openByServer.set(server, (connections.openByServer.get(server) ?? 1) - 1);
      }
    },
    onMailFrom: (_address, session, callback) => {
      const helo = session.hostNameAppearsAs;
      connections.byHelo.set(helo, (connections.byHelo.get(helo) ?? 0) + 1);
      connections.openHelos.set(session.id, helo);
      callback();
    },
    onRcptTo: (address, session, callback) => {
      const [local, shown] = address.address.toLowerCase().split('@') as [string, string];
      // smtp-server hands internationalized domains over in Unicode: compare their A-label form.
      const domain = domainToASCII(shown);
      countServer(session.id, domain);
      const refuse = (code: number, text: string) => callback(Object.assign(new Error(text), { responseCode: code }));
      if (['accept.test', 'afallback.test', 'backup.test'].includes(domain)) {
        return local === 'ann' ? callback() : refuse(550, '5.1.1 No such user');
      }
      if (domain === 'xn--mller-kva.test') return local === 'otto' ? callback() : refuse(550, '5.1.1 No such user');
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
      if (domain === 'busy.test' || domain.startsWith('shared-')) {
        return setTimeout(() => (local.startsWith('ok') ? callback() : refuse(550, 'No such user')), BUSY_ANSWER_MS);
      }
      if (domain === 'hold.test') return setTimeout(() => callback(), HOLD_ANSWER_MS);
      if (domain === 'drop.test') {
        const open = (smtp as unknown as { connections: Set<{ id: string; _socket: { destroy: () => void } }> })
          .connections;
        for (const connection of open) if (connection.id === session.id) connection._socket.destroy();
        return;
      }
      return refuse(550, 'No such domain here');
    },
  });
  smtp.on('error', () => {});
  await new Promise<void>((resolve) => smtp.listen(smtpPort, '127.0.0.1', resolve));
  // The same port on this machine's own address: whatever connects there is counted (and never should).
  const ownAddress = own();
  const ownListener = net.createServer((socket) => {
    connections.toOwnAddress += 1;
    socket.end('220 own address\r\n');
  });
  if (ownAddress !== '127.0.0.1')
    await new Promise<void>((resolve) => ownListener.listen(smtpPort, ownAddress, resolve));
  return {
    dnsPort,
    smtpPort,
    ownAddress,
    greyAttempts,
    connections,
    close: async () => {
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
      if (ownListener.listening) await new Promise<void>((resolve) => ownListener.close(() => resolve()));
      await dnsServer.close();
    },
  };
};
