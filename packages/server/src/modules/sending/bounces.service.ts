import { sql } from 'kysely';
import { SMTPServer } from 'smtp-server';
import type { TPlatform } from '../../platform/context';
import { suppress } from '../suppression/suppression.service';
import { parseBounce, type TBounce } from './bounce-parser';
import { tokenOfVerp } from './message';

/**
 * Bounces of SMTP and Gmail sends. Each message leaves with the envelope sender
 * `bounces+<token>@BOUNCE_DOMAIN` (VERP, `message.ts`); the receiving server's bounce comes
 * back to that address, to Sendwell's own SMTP receiver (`startBounceReceiver`, in each
 * worker), which reads it (`bounce-parser.ts`) and records, for the recipient the token
 * names: a delivery event (failed permanent or deferred, with the server's words), and for
 * a permanent failure a suppression, as Mailgun's events do. A bounce is recorded once
 * however often it arrives (its Message-ID and the token).
 */

type TFoundBounce = Exclude<TBounce, { kind: 'not-a-bounce' }>;

/** Records one bounce for the recipient with this token; answers whether it was new. */
export const recordBounce = async (platform: TPlatform, token: string, bounce: TFoundBounce) =>
  platform.db.transaction().execute(async (trx) => {
    const inserted = await sql<{ user_id: number; send_id: number; email: string }>`
      insert into delivery_events (user_id, account_id, send_id, recipient_id, email, type, severity, source,
                                   provider_event_id, detail)
      select r.user_id, s.account_id, r.send_id, r.id, r.email,
             ${bounce.kind === 'permanent' ? 'failed' : 'deferred'}, ${bounce.kind}, 'smtp',
             ${`dsn:${bounce.messageId ?? bounce.diagnostic.slice(0, 80)}:${token}`}, ${bounce.diagnostic}
        from send_recipients r join sends s on s.id = r.send_id
       where r.token = ${token}
      on conflict (source, provider_event_id) where provider_event_id is not null do nothing
      returning user_id, send_id, email`.execute(trx);
    const event = inserted.rows[0];
    if (!event) return false;
    if (bounce.kind === 'permanent') {
      await suppress(trx, [
        {
          userId: event.user_id,
          email: event.email,
          type: 'bounce',
          reason: 'permanent failure',
          message: bounce.diagnostic,
          description: bounce.description,
          source: 'smtp',
          sendId: event.send_id,
        },
      ]);
    }
    return true;
  });

/** Reads a message that came to VERP addresses and records the bounce it holds, if any. */
export const receiveBounceMessage = async (platform: TPlatform, tokens: string[], raw: Buffer) => {
  const bounce = await parseBounce(raw);
  if (bounce.kind === 'not-a-bounce') return { recorded: 0, bounce };
  let recorded = 0;
  for (const token of tokens) if (await recordBounce(platform, token, bounce)) recorded += 1;
  return { recorded, bounce };
};

/** The largest bounce message taken (a DSN quotes the original; 2 MB holds any sane one). */
const MAX_BOUNCE_BYTES = 2 * 1024 * 1024;

/**
 * Sendwell's inbound SMTP for bounces: takes mail only for VERP addresses on the bounce
 * domain (anything else: 550), stores nothing but what it records, and answers 250 to
 * auto-replies too (so their senders stop retrying).
 */
export const startBounceReceiver = async (platform: TPlatform, port: number) => {
  const domain = platform.config.bounces!.domain;
  const server = new SMTPServer({
    logger: false,
    banner: 'Sendwell bounce receiver',
    // On shutdown, connections still open (a client's pooled session) are cut after 3 s instead
    // of the default 30, which outlasted the process's 20 s shutdown deadline.
    closeTimeout: 3_000,
    authOptional: true,
    disabledCommands: ['AUTH'],
    size: MAX_BOUNCE_BYTES,
    maxClients: 50,
    onRcptTo: (address, _session, callback) =>
      tokenOfVerp(domain, address.address)
        ? callback()
        : callback(Object.assign(new Error('No such mailbox here'), { responseCode: 550 })),
    onData: (stream, session, callback) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if ((stream as unknown as { sizeExceeded?: boolean }).sizeExceeded) {
          return callback(Object.assign(new Error('Message too big'), { responseCode: 552 }));
        }
        const tokens = session.envelope.rcptTo.flatMap((rcpt) => tokenOfVerp(domain, rcpt.address) ?? []);
        receiveBounceMessage(platform, tokens, Buffer.concat(chunks))
          .then(({ recorded, bounce }) => {
            platform.log.info({ recorded, kind: bounce.kind }, 'bounce message received');
            callback();
          })
          .catch((error: unknown) => {
            platform.log.error({ err: error }, 'bounce message could not be recorded');
            // 451: the sender keeps it and tries again later.
            callback(Object.assign(new Error('Try again later'), { responseCode: 451 }));
          });
      });
    },
  });
  server.on('error', (error) => platform.log.warn({ err: error }, 'bounce receiver connection error'));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => {
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

/**
 * A worker's bounce receiver, when BOUNCE_DOMAIN is set. Several workers on one machine:
 * the first takes the port, the others say so and carry on (any of them records alike).
 */
export const watchBounces = (platform: TPlatform) => {
  const bounces = platform.config.bounces;
  if (!bounces) return () => {};
  let receiver: Awaited<ReturnType<typeof startBounceReceiver>> | null = null;
  startBounceReceiver(platform, bounces.port)
    .then((started) => {
      receiver = started;
      platform.log.info({ port: started.port, domain: bounces.domain }, 'bounce receiver listening');
    })
    .catch((error: unknown) => platform.log.warn({ err: error }, 'bounce receiver not started (port taken?)'));
  return () => void receiver?.close();
};
