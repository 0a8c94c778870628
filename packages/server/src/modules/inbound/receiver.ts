import type { SMTPServerOptions } from 'smtp-server';
import type { TPlatform } from '../../platform/context';
import {
  isRefusal,
  routeFor,
  type TInboundAnswer,
  type TInboundListener,
  type TInboundRoute,
  type TInboundSession,
} from './inbound.service';

/**
 * Connections still open at shutdown (a client's pooled session) are cut after this, instead
 * of smtp-server's default 30 s, which outlasted the process's stop deadline.
 */
const CLOSE_TIMEOUT_MS = 3_000;

const smtpError = (code: number, message: string) => Object.assign(new Error(message), { responseCode: code });

/** The recipients of one envelope, by the route that took each. */
type TEnvelopeRoutes = Map<TInboundRoute, string[]>;

export type TRunningListener = { name: string; port: number; close: () => Promise<void> };

/**
 * Starts one listener (an SMTP server) that hands each message to the routes of its
 * recipients: RCPT TO asks the routes (catch-all last) and refuses what none takes; DATA
 * is read up to the listener's size and given to each route with its own recipients; the
 * reply is 250 once every route has kept its part, else the first refusal (a route that
 * throws answers 451, so the sender tries again). `port` 0 picks a free port (tests).
 */
export const startListener = async (
  platform: TPlatform,
  listener: TInboundListener,
  { port = listener.port(platform.config) ?? 0, host = listener.host(platform.config) } = {},
): Promise<TRunningListener> => {
  const { config, log } = platform;
  // Loaded by the first listener: a process without one (the web role, the admin CLI) never loads it.
  const { SMTPServer } = await import('smtp-server');
  const envelopes = new WeakMap<object, TEnvelopeRoutes>();
  const sessionOf = (session: { user?: unknown }): TInboundSession => ({
    listener: listener.name,
    userId: typeof session.user === 'number' ? session.user : null,
    isInProcess: false,
  });
  const login: Partial<SMTPServerOptions> =
    listener.login.kind === 'none'
      ? { authOptional: true, disabledCommands: ['AUTH'] }
      : {
          // Mail to a listener that takes logins travels on loopback or comes from anyone to
          // an address that protects nothing: a login in clear is allowed (STARTTLS is offered).
          allowInsecureAuth: true,
          authMethods: ['PLAIN', 'LOGIN'],
          authOptional: listener.login.kind === 'any',
          onAuth: (auth, _session, callback) => {
            if (listener.login.kind !== 'required') return callback(null, { user: auth.username ?? 'anonymous' });
            const userId = listener.login.userOf(platform, auth.username ?? '', auth.password ?? '');
            if (userId === null) callback(new Error('Invalid username or password'));
            else callback(null, { user: userId });
          },
        };
  const server = new SMTPServer({
    logger: false,
    banner: listener.banner,
    ...(listener.serverName ? { name: listener.serverName(config) } : {}),
    closeTimeout: CLOSE_TIMEOUT_MS,
    size: listener.maxBytes(config),
    ...(listener.maxClients ? { maxClients: listener.maxClients } : {}),
    ...login,
    onRcptTo: (address, session, callback) => {
      const found = routeFor(platform, address.address, sessionOf(session));
      if (isRefusal(found)) return callback(smtpError(found.code, found.message));
      const routes = envelopes.get(session.envelope) ?? new Map<TInboundRoute, string[]>();
      envelopes.set(session.envelope, routes);
      const taken = routes.get(found) ?? [];
      if (found.maxRecipients !== undefined && taken.length >= found.maxRecipients) {
        return callback(smtpError(452, `4.5.3 At most ${found.maxRecipients} such address per message`));
      }
      routes.set(found, [...taken, address.address]);
      callback();
    },
    onData: (stream, session, callback) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if ((stream as unknown as { sizeExceeded?: boolean }).sizeExceeded) {
          return callback(smtpError(552, '5.3.4 Message too big'));
        }
        const raw = Buffer.concat(chunks);
        const routes = envelopes.get(session.envelope) ?? new Map<TInboundRoute, string[]>();
        const base = {
          raw,
          ip: session.remoteAddress.replace(/^::ffff:/, ''),
          helo: session.hostNameAppearsAs ?? '',
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          session: sessionOf(session),
        };
        const received = async () => {
          const answers: TInboundAnswer[] = [];
          for (const [route, rcptTo] of routes) answers.push(await route.receive(platform, { ...base, rcptTo }));
          return answers.find((answer) => !answer.accepted);
        };
        received()
          .then((refusal) =>
            refusal && !refusal.accepted ? callback(smtpError(refusal.code, refusal.message)) : callback(),
          )
          .catch((error: unknown) => {
            log.error({ err: error, listener: listener.name }, 'an inbound message could not be kept');
            callback(smtpError(451, '4.3.0 Try again later'));
          });
      });
    },
  });
  server.on('error', (error) => log.warn({ err: error, listener: listener.name }, 'inbound connection error'));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.server.address();
  return {
    name: listener.name,
    port: typeof address === 'object' && address ? address.port : port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

/**
 * A worker's listeners: every registered listener whose port the configuration gives.
 * Several workers on one machine: the first takes a port, the others say so and carry on
 * (any of them keeps mail alike, and every worker delivers in-process mail itself).
 * Answers how to stop them all.
 */
export const startInboundListeners = (platform: TPlatform) => {
  const running: Promise<TRunningListener | null>[] = platform.hooks.inboundListeners
    .filter((listener) => listener.port(platform.config) !== null)
    .map((listener) =>
      startListener(platform, listener)
        .then((started) => {
          platform.log.info({ listener: listener.name, port: started.port }, 'inbound listener started');
          return started;
        })
        .catch((error: unknown) => {
          platform.log.warn({ err: error, listener: listener.name }, 'inbound listener not started (port taken?)');
          return null;
        }),
    );
  return async () => {
    await Promise.all(running.map(async (started) => (await started)?.close()));
  };
};
