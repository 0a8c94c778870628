import type { TInboundListener, TInboundRoute } from '../inbound/inbound.service';
import { isSpamTestAddress, receiveSpamTestMessage } from './spam-test.service';

/** What the test mailbox takes at most; a larger test message is refused (552) while it arrives. */
const MAX_MESSAGE_BYTES = 25 * 1024 * 1024;

/**
 * The test mailbox's route: mail for `t-<token>@SPAM_TEST_DOMAIN`, one test address per
 * message, from anyone (it is where the domain's MX points) on any listener, and from the
 * test inbox's own transport. Like any receiver it answers only once the message is kept,
 * so a sender that loses the answer sends again and the copy is dropped.
 */
export const spamTestRoute: TInboundRoute = {
  name: 'spam-test',
  accepts: (platform, address) => isSpamTestAddress(platform, address),
  maxRecipients: 1,
  receive: async (platform, message) => {
    const rcptTo = message.rcptTo[0] ?? '';
    const outcome = await receiveSpamTestMessage(platform, {
      raw: message.raw,
      ip: message.ip,
      helo: message.helo,
      mailFrom: message.mailFrom,
      rcptTo,
    });
    return outcome === 'accepted'
      ? { accepted: true, id: 'spam-test' }
      : { accepted: false, code: 550, message: `5.1.1 <${rcptTo}>: no such test mailbox` };
  },
};

/**
 * The test mailbox's own listener (SPAM_TEST_SMTP_PORT, on every interface; off with
 * SPAM_TEST_MAILBOX=false). Anyone may deliver here, signed in or not: it takes mail only for
 * test addresses, so a login protects nothing. It is offered anyway (any login passes) so an
 * SMTP account may also point straight at the mailbox, as at a submission server.
 */
export const spamTestListener: TInboundListener = {
  name: 'spam-test-mailbox',
  port: (config) => config.spamTest.port,
  host: () => '0.0.0.0',
  serverName: (config) => config.spamTest.domain,
  banner: 'Sendwell test mailbox',
  maxBytes: () => MAX_MESSAGE_BYTES,
  login: { kind: 'any' },
};
