import dns2 from 'dns2';
import { SMTPServer } from 'smtp-server';
import { freePort } from './cluster';

const { Packet } = dns2;

/**
 * What email verification talks to, on loopback: a DNS server (dns2) with MX and A records
 * for test domains, and one SMTP server whose answers depend on the domain asked about
 * (accepting, refusing, catch-all, greylisting, slow, dropping the line).
 */
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

export const startVerifyPeers = async () => {
  const greyAttempts = new Map<string, number>();
  const dnsPort = await freePort();
  const dnsServer = dns2.createServer({
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

  const smtpPort = await freePort();
  const smtp: SMTPServer = new SMTPServer({
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
  return {
    dnsPort,
    smtpPort,
    greyAttempts,
    close: async () => {
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
      await dnsServer.close();
    },
  };
};
