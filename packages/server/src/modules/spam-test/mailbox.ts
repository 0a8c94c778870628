import { SMTPServer } from 'smtp-server';
import type { TPlatform } from '../../platform/context';
import { isSpamTestAddress, receiveSpamTestMessage } from './spam-test.service';

/** What a receiver takes at most; a larger test message is refused (552) while it arrives. */
const MAX_MESSAGE_BYTES = 25 * 1024 * 1024;

/**
 * The test mailbox: an SMTP server that takes mail for `t-<token>@SPAM_TEST_DOMAIN` from
 * anyone (it is where the domain's MX points), refuses every other address, and hands each
 * message with its sender's address and EHLO name to the spam test. Like any receiver it
 * answers only once the message is kept, so a sender that loses the answer sends again and
 * the copy is dropped.
 */
export const startSpamTestMailbox = async (platform: TPlatform, port: number, host = '0.0.0.0') => {
  const server = new SMTPServer({
    logger: false,
    name: platform.config.spamTest.domain,
    banner: 'Sendwell test mailbox',
    size: MAX_MESSAGE_BYTES,
    // Anyone may deliver here, signed in or not: the mailbox takes mail only for test
    // addresses, so a login protects nothing. It is offered anyway (any login passes) so an
    // SMTP account may also point straight at the mailbox, as at a submission server.
    authOptional: true,
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    onAuth: (auth, _session, callback) => callback(null, { user: auth.username ?? 'anonymous' }),
    closeTimeout: 3_000,
    onRcptTo: (address, session, callback) => {
      if (!isSpamTestAddress(platform, address.address)) {
        return callback(
          Object.assign(new Error(`5.1.1 <${address.address}>: no such test mailbox`), { responseCode: 550 }),
        );
      }
      if (session.envelope.rcptTo.length >= 1) {
        return callback(Object.assign(new Error('4.5.3 One test address per message'), { responseCode: 452 }));
      }
      callback();
    },
    onData: (stream, session, callback) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if ((stream as unknown as { sizeExceeded?: boolean }).sizeExceeded) {
          return callback(
            Object.assign(new Error('5.3.4 Message too big for the test mailbox'), { responseCode: 552 }),
          );
        }
        const rcptTo = session.envelope.rcptTo[0]?.address ?? '';
        receiveSpamTestMessage(platform, {
          raw: Buffer.concat(chunks),
          ip: session.remoteAddress.replace(/^::ffff:/, ''),
          helo: session.hostNameAppearsAs ?? '',
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          rcptTo,
        })
          .then((outcome) =>
            outcome === 'accepted'
              ? callback()
              : callback(Object.assign(new Error(`5.1.1 <${rcptTo}>: no such test mailbox`), { responseCode: 550 })),
          )
          .catch((error: unknown) => {
            platform.log.error({ err: error }, 'the test mailbox could not keep a message');
            callback(Object.assign(new Error('4.3.0 Try again later'), { responseCode: 451 }));
          });
      });
    },
  });
  server.on('error', (error) => platform.log.warn({ err: error }, 'test mailbox connection error'));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.server.address();
  return {
    port: typeof address === 'object' && address ? address.port : port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

/** Runs the mailbox in a worker while SPAM_TEST_MAILBOX is on (the modules' `onWorkerStart`). */
export const watchSpamTestMailbox = (platform: TPlatform) => {
  const port = platform.config.spamTest.port;
  if (port === null) return () => {};
  let mailbox: Awaited<ReturnType<typeof startSpamTestMailbox>> | null = null;
  startSpamTestMailbox(platform, port)
    .then((started) => {
      mailbox = started;
      platform.log.info({ port: started.port, domain: platform.config.spamTest.domain }, 'test mailbox listening');
    })
    .catch((error: unknown) => platform.log.warn({ err: error }, 'test mailbox not started (port taken?)'));
  return () => void mailbox?.close();
};
