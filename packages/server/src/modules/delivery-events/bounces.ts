import type { TPlatform } from '../../platform/context';
import { findRecipientsByTokens, tokenOfVerp } from '../delivery/delivery.service';
import { LOCAL_REPORTS_ADDRESS, type TInboundListener, type TInboundRoute } from '../inbound/inbound.service';
import { parseBounce, type TBounce } from './bounce-parser';
import { recordDeliveryEvents } from './delivery-events.service';

/**
 * Bounces of SMTP and Gmail sends. Each message leaves with the envelope sender
 * `bounces+<token>@BOUNCE_DOMAIN` (VERP, `delivery/message.ts`); the receiving server's
 * bounce comes back to that address, to Sendwell's bounce listener (an inbound listener in
 * each worker, `BOUNCE_SMTP_PORT`), whose route reads it (`bounce-parser.ts`) and records,
 * for the recipient the token names, through the one entry point every intake uses: a
 * delivery event (failed permanent or deferred, with the server's words), and for a
 * permanent failure a suppression and the recipient failed, as Mailgun's events do. A
 * bounce is recorded once however often it arrives (its Message-ID and the token).
 */

type TFoundBounce = Exclude<TBounce, { kind: 'not-a-bounce' }>;

/** Records one bounce for the recipient with this token; answers whether it was new. */
export const recordBounce = async (platform: TPlatform, token: string, bounce: TFoundBounce) => {
  const [recipient] = await findRecipientsByTokens(platform.db, [token]);
  if (!recipient) return false;
  const [isNew] = await platform.db.transaction().execute((trx) =>
    recordDeliveryEvents(trx, [
      {
        recipient,
        userId: recipient.user_id,
        accountId: recipient.account_id,
        email: recipient.email,
        type: bounce.kind === 'permanent' ? 'failed' : 'deferred',
        severity: bounce.kind,
        source: 'smtp',
        providerEventId: `dsn:${bounce.messageId ?? bounce.diagnostic.slice(0, 80)}:${token}`,
        detail: bounce.diagnostic,
        suppression: { reason: 'permanent failure', message: bounce.diagnostic, description: bounce.description },
      },
    ]),
  );
  return isNew === true;
};

/** Reads a bounce message for these recipients' tokens and records the bounce it holds, if any. */
export const receiveBounceMessage = async (platform: TPlatform, tokens: string[], raw: Buffer) => {
  const bounce = await parseBounce(raw);
  if (bounce.kind === 'not-a-bounce') return { recorded: 0, bounce };
  let recorded = 0;
  for (const token of tokens) if (await recordBounce(platform, token, bounce)) recorded += 1;
  return { recorded, bounce };
};

/**
 * The recipient tokens a report's quoted original names in its Message-ID
 * (`<token.send@domain>`, `delivery/message.ts`): how a report that came to no VERP address
 * (the test inbox's in-process reports) is tied to its message.
 */
const tokensOfQuotedOriginal = (raw: Buffer) => {
  const text = raw.toString('latin1');
  return [
    ...new Set(
      [...text.matchAll(/^Message-ID:\s*<([a-f0-9]{16,64})\.\d+@[^>\s]+>/gim)].map((match) => match[1]!.toLowerCase()),
    ),
  ];
};

const bounceDomainOf = (platform: TPlatform) => platform.config.bounces?.domain ?? null;

/**
 * Bounce intake's route: mail for VERP addresses on the bounce domain, from anyone, on any
 * listener; and, from inside the process only, the local reports address (the test inbox's
 * late bounces on a run without BOUNCE_DOMAIN). It answers 250 to auto-replies too, so their
 * senders stop retrying, and 451 when it cannot record (the sender tries again).
 */
export const bounceRoute: TInboundRoute = {
  name: 'bounces',
  accepts: (platform, address, session) => {
    const domain = bounceDomainOf(platform);
    if (domain && tokenOfVerp(domain, address)) return true;
    return session.isInProcess && address.toLowerCase() === LOCAL_REPORTS_ADDRESS;
  },
  receive: async (platform, message) => {
    const domain = bounceDomainOf(platform);
    const verpTokens = domain ? message.rcptTo.flatMap((address) => tokenOfVerp(domain, address) ?? []) : [];
    const tokens = verpTokens.length > 0 ? verpTokens : tokensOfQuotedOriginal(message.raw);
    const { recorded, bounce } = await receiveBounceMessage(platform, tokens, message.raw);
    platform.log.info({ recorded, kind: bounce.kind }, 'bounce message received');
    return { accepted: true };
  },
};

/** The largest bounce message taken (a DSN quotes the original; 2 MB holds any sane one). */
const MAX_BOUNCE_BYTES = 2 * 1024 * 1024;

/**
 * The bounce listener, when BOUNCE_DOMAIN is set (point the domain's MX at it, port 25
 * forwarded to BOUNCE_SMTP_PORT): takes mail only for the routes' addresses (anything else: 550).
 */
export const bounceListener: TInboundListener = {
  name: 'bounces',
  port: (config) => config.bounces?.port ?? null,
  host: () => '0.0.0.0',
  banner: 'Sendwell bounce receiver',
  maxBytes: () => MAX_BOUNCE_BYTES,
  maxClients: 50,
  login: { kind: 'none' },
};
