import type { TConfig } from '../../platform/config';
import type { TPlatform } from '../../platform/context';

/**
 * Sendwell's inbound mail: one SMTP receiving framework (`receiver.ts`) for every door mail
 * comes in by. The framework listens, limits sizes, clients and recipients, answers and
 * stops; what becomes of a message is decided by the routes other modules register
 * (`inboundRoutes` in their registration): the spam test takes `t-<token>@SPAM_TEST_DOMAIN`,
 * bounce intake takes VERP addresses, the test inbox takes its signed-in users' mail. The
 * listeners are registered the same way (`inboundListeners`): each names its port from the
 * configuration. This module imports no other; they import it.
 */

/** Who is delivering: the listener, the user a login names, whether it came over a socket. */
export type TInboundSession = {
  /** The listener's name, or `in-process` for mail a transport hands over inside this process. */
  listener: string;
  /** The user the client signed in as (a listener that takes logins), else null. */
  userId: number | null;
  /** Handed over inside this process (the test inbox's own transport), not over a socket. */
  isInProcess: boolean;
};

/** One message as a route receives it: with the recipients that route accepted. */
export type TInboundMessage = {
  raw: Buffer;
  /** The client's address and EHLO name, as a receiver sees them. */
  ip: string;
  helo: string;
  mailFrom: string;
  rcptTo: string[];
  session: TInboundSession;
};

/** A route's answer: taken (with an id for the sender's records), or refused with an SMTP reply. */
export type TInboundAnswer =
  | { accepted: true; id?: string }
  | {
      accepted: false;
      /** 4xx: the sender keeps the message and tries again; 5xx: it gives up. */
      code: number;
      /** The reply's text, starting with the enhanced status code (`5.1.1 <a@b>: …`). */
      message: string;
    };

export type TInboundRefusal = Extract<TInboundAnswer, { accepted: false }>;

export type TInboundRoute = {
  name: string;
  /**
   * Whether this route takes mail for the address (at RCPT TO): true, false (another route
   * may), or a refusal that ends the question (an address the route knows must bounce).
   */
  accepts: (platform: TPlatform, address: string, session: TInboundSession) => boolean | TInboundRefusal;
  /** Taken only when no other route takes the address (the test inbox keeps whatever its users send). */
  isCatchAll?: boolean;
  /** At most this many of this route's addresses in one message (the spam test: one). */
  maxRecipients?: number;
  /** Keeps or reads the message; answers only once what it must keep is committed. */
  receive: (platform: TPlatform, message: TInboundMessage) => Promise<TInboundAnswer>;
};

/** How a listener treats AUTH: a login it checks (the user it names), any login, or none offered. */
export type TInboundLogin =
  | { kind: 'required'; userOf: (platform: TPlatform, username: string, password: string) => number | null }
  | { kind: 'any' }
  | { kind: 'none' };

export type TInboundListener = {
  name: string;
  /** Its port, or null when the configuration turns it off. */
  port: (config: TConfig) => number | null;
  host: (config: TConfig) => string;
  banner: string;
  /** The name it gives itself in its greeting (the machine's name when unset). */
  serverName?: (config: TConfig) => string;
  /** The largest message taken, in bytes: a larger one is refused (552) while it arrives. */
  maxBytes: (config: TConfig) => number;
  maxClients?: number;
  login: TInboundLogin;
};

/** Said for an address no route takes. */
export const noSuchMailbox = (address: string): TInboundRefusal => ({
  accepted: false,
  code: 550,
  message: `5.1.1 <${address}>: no such mailbox here`,
});

/**
 * The route that takes mail for an address, or the refusal to answer: the routes in their
 * order, catch-all routes last.
 */
export const routeFor = (
  platform: TPlatform,
  address: string,
  session: TInboundSession,
): TInboundRoute | TInboundRefusal => {
  const routes = platform.hooks.inboundRoutes;
  for (const route of [...routes.filter((r) => !r.isCatchAll), ...routes.filter((r) => r.isCatchAll)]) {
    const answer = route.accepts(platform, address, session);
    if (answer === true) return route;
    if (answer !== false) return answer;
  }
  return noSuchMailbox(address);
};

export const isRefusal = (found: TInboundRoute | TInboundRefusal): found is TInboundRefusal => 'accepted' in found;

/**
 * Hands one message for one address to its route inside this process, as if it had come
 * over SMTP from `ip`: the test inbox's transport delivers this way, so every worker
 * delivers test-inbox mail whether or not it runs the listener, through the same routes.
 */
export const deliverInProcess = async (
  platform: TPlatform,
  message: Omit<TInboundMessage, 'rcptTo' | 'session'> & { rcptTo: string; userId: number | null },
): Promise<TInboundAnswer> => {
  const session: TInboundSession = { listener: 'in-process', userId: message.userId, isInProcess: true };
  const found = routeFor(platform, message.rcptTo, session);
  if (isRefusal(found)) return found;
  return found.receive(platform, {
    raw: message.raw,
    ip: message.ip,
    helo: message.helo,
    mailFrom: message.mailFrom,
    rcptTo: [message.rcptTo],
    session,
  });
};

/**
 * The in-process address of delivery reports that no VERP envelope names a recipient for
 * (a local run without BOUNCE_DOMAIN): the test inbox sends its late bounces here, and
 * bounce intake takes it only from inside the process.
 */
export const LOCAL_REPORTS_ADDRESS = 'reports@inbound.sendwell.local';
