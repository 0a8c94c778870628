import { getServers } from 'node:dns';
import net from 'node:net';

/**
 * DNS for the pre-send check, each answer kept for its own TTL (issue 31): a user who checks
 * a send, fixes a word and checks again asks the DNS nothing new, and a record changed at
 * the provider shows once its TTL runs out, as receivers see it. Node's resolver gives no TTL
 * for TXT records, so questions go to the configured servers (SPAM_TEST_DNS_SERVERS,
 * VERIFY_DNS_SERVERS, else the system's) over UDP, and a truncated answer (a long SPF or
 * DKIM record past what one datagram holds) is asked again over TCP (RFC 7766), each within
 * the same timeout.
 *
 * `resolve(name, type)` answers as `dns.promises.resolve` does (TXT as arrays of strings, A
 * as addresses, MX as `{exchange, priority}`), so mailauth's SPF reading can use it; a name
 * that does not exist throws `ENOTFOUND`, a name without records of the type `ENODATA`.
 */

type TAnswer = { value: unknown; expiresAt: number };
type TDns2 = typeof import('dns2').default;
type TResponse = {
  header: { rcode: number; tc?: number };
  answers: { type: number; ttl: number; data?: string[]; address?: string; exchange?: string; priority?: number }[];
};
/** Empty answers are kept this long (RFC 2308's negative caching, bounded). */
const NEGATIVE_TTL_S = 60;
/** However long a record says, the check looks again after this. */
const MAX_TTL_S = 3600;
const MAX_ENTRIES = 10_000;

const TYPES = { A: 1, MX: 15, TXT: 16, AAAA: 28 } as const;
type TType = keyof typeof TYPES;

const parseServer = (server: string) => {
  const match = /^\[?([^\]]+?)\]?(?::(\d+))?$/.exec(server.trim());
  return { host: match?.[1] ?? server, port: Number(match?.[2] ?? 53) };
};

const dnsError = (code: string, name: string) => Object.assign(new Error(`${code} ${name}`), { code, hostname: name });

/**
 * One question over TCP (RFC 7766 §8: the message after its two-byte length), the connection
 * closed once the answer is read or the timeout passes; dns2's own TCP client has no timeout.
 */
const askOverTcp = (
  dns2: TDns2,
  server: { host: string; port: number },
  timeoutMs: number,
  name: string,
  type: TType,
): Promise<TResponse> =>
  new Promise((resolve, reject) => {
    const { Packet } = dns2;
    const query = new Packet();
    query.header.id = Packet.uuid();
    query.header.rd = 1;
    query.questions.push(new Packet.Question(name, Packet.TYPE[type], Packet.CLASS.IN));
    const message = query.toBuffer();
    const length = Buffer.alloc(2);
    length.writeUInt16BE(message.length);
    let received = Buffer.alloc(0);
    const socket = net.connect(server);
    const finish = (error: Error | null, response?: TResponse) => {
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(response!);
    };
    const timer = setTimeout(
      () => finish(dnsError('ETIMEDOUT', `${name} (no answer over TCP within ${timeoutMs} ms)`)),
      timeoutMs,
    );
    socket.on('connect', () => socket.write(Buffer.concat([length, message])));
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      if (received.length < 2 || received.length < 2 + received.readUInt16BE(0)) return;
      try {
        finish(null, Packet.parse(received.subarray(2, 2 + received.readUInt16BE(0))) as unknown as TResponse);
      } catch (error) {
        finish(error as Error);
      }
    });
    socket.on('error', (error) => finish(error));
    // Closed before a whole answer came (a settled promise ignores this).
    socket.on('close', () => finish(dnsError('ECONNRESET', name)));
  });

export type TCachingResolver = {
  resolve: (name: string, type: string) => Promise<unknown>;
  /** Questions that went to a server (the rest came from the cache). */
  asked: () => number;
};

export const createCachingResolver = (
  servers: string[],
  { now = () => Date.now(), timeoutMs = 3_000 }: { now?: () => number; timeoutMs?: number } = {},
): TCachingResolver => {
  const cache = new Map<string, TAnswer>();
  let asked = 0;
  const { host, port } = parseServer(servers[0] ?? getServers()[0] ?? '127.0.0.1');
  // dns2 is loaded with the first question, not at every process start (most never ask one).
  let client: Promise<(name: string, type: TType) => Promise<TResponse>> | undefined;
  const clientOf = () =>
    (client ??= import('dns2').then(({ default: dns2 }) => {
      // Its own retry over TCP is off: ours has the timeout.
      const overUdp = dns2.UDPClient({ dns: host, port, timeout: timeoutMs, retryOverTCP: false });
      return async (name: string, type: TType) => {
        const response = (await overUdp(name, type)) as unknown as TResponse;
        return response.header.tc ? askOverTcp(dns2, { host, port }, timeoutMs, name, type) : response;
      };
    }));

  const lookUp = async (name: string, type: TType) => {
    asked += 1;
    const ask = await clientOf();
    const response = await ask(name, type);
    if (response.header.rcode === 3) return { value: dnsError('ENOTFOUND', name), ttl: NEGATIVE_TTL_S };
    const answers = response.answers.filter((answer) => answer.type === TYPES[type]);
    if (answers.length === 0) return { value: dnsError('ENODATA', name), ttl: NEGATIVE_TTL_S };
    const ttl = Math.min(MAX_TTL_S, ...answers.map((answer) => answer.ttl));
    const value =
      type === 'TXT'
        ? answers.map((answer) => answer.data ?? [])
        : type === 'MX'
          ? answers.map((answer) => ({ exchange: answer.exchange ?? '', priority: answer.priority ?? 0 }))
          : answers.map((answer) => answer.address ?? '');
    return { value, ttl };
  };

  const resolve = async (name: string, type = 'A') => {
    const upper = type.toUpperCase();
    if (!(upper in TYPES)) throw dnsError('ENOTIMP', name);
    const key = `${upper} ${name.toLowerCase()}`;
    const cached = cache.get(key);
    if (cached && cached.expiresAt > now()) {
      if (cached.value instanceof Error) throw cached.value;
      return cached.value;
    }
    const { value, ttl } = await lookUp(name, upper as TType);
    if (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value!);
    cache.set(key, { value, expiresAt: now() + ttl * 1000 });
    if (value instanceof Error) throw value;
    return value;
  };
  return { resolve, asked: () => asked };
};
