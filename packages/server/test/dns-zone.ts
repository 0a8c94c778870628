import dns2 from 'dns2';
import { freePort } from './cluster';

const { Packet } = dns2;

/** A name's records: TXT values are split into 255-octet strings as DNS carries them. */
export type TZone = Record<string, { a?: string[]; mx?: string[]; txt?: string[]; isSilent?: boolean }>;

/**
 * The names that must exist (DNS_CANARY_NAMES' default) as the internet has them: a resolver
 * that does not find them is taken as broken (R48), so every test zone holds them.
 */
export const WELL_KNOWN_MX = {
  'gmail.com': { mx: ['gmail-smtp-in.l.google.com'] },
  'outlook.com': { mx: ['outlook-com.olc.protection.outlook.com'] },
  'yahoo.com': { mx: ['mta5.am0.yahoodns.net'] },
} satisfies TZone;

/**
 * A DNS server on loopback answering from a zone of the test's own (SPF, DKIM keys, DMARC
 * policies, blocklist entries): what a receiver looks up, under the test's control, beside
 * the names that must exist. `brokenAfter: n` answers the first n questions and then "no such
 * domain" to everything, as a broken resolver does (R48); 0 is broken from the start.
 */
export const startDnsZone = async (
  ownZone: TZone,
  { brokenAfter = Number.POSITIVE_INFINITY }: { brokenAfter?: number } = {},
) => {
  const zone: TZone = { ...WELL_KNOWN_MX, ...ownZone };
  let answered = 0;
  const port = await freePort();
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      const [question] = request.questions;
      const records = answered++ < brokenAfter ? zone[question!.name.toLowerCase()] : undefined;
      // A name whose server never answers: the asker times out (a DNS that does not answer).
      if (records?.isSilent) return;
      if (!records) {
        response.header.rcode = 3; // NXDOMAIN
      } else if (question!.type === Packet.TYPE.TXT) {
        for (const value of records.txt ?? []) {
          const chunks = value.match(/.{1,255}/gs) ?? [''];
          response.answers.push(<never>{
            name: question!.name,
            type: Packet.TYPE.TXT,
            class: Packet.CLASS.IN,
            ttl: 60,
            data: chunks,
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
      } else if (question!.type === Packet.TYPE.MX) {
        for (const [index, exchange] of (records.mx ?? []).entries()) {
          response.answers.push(<never>{
            name: question!.name,
            type: Packet.TYPE.MX,
            class: Packet.CLASS.IN,
            ttl: 60,
            priority: 10 + index,
            exchange,
          });
        }
      }
      send(response);
    },
  });
  await server.listen({ udp: { port, address: '127.0.0.1' } });
  return { server: `127.0.0.1:${port}`, close: () => server.close() };
};
