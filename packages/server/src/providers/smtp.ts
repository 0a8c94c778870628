import { Readable } from 'node:stream';
import nodemailer from 'nodemailer';
import addressparser from 'nodemailer/lib/addressparser';
import SMTPConnection from 'nodemailer/lib/smtp-connection';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import XOAuth2 from 'nodemailer/lib/xoauth2';
import { resolvePublicHost } from '../platform/network-guard';
import {
  HANDOVER_REFUSED,
  mayStart,
  type TFailureKind,
  type TMailTransport,
  type TOutgoingMessage,
  TransportError,
  type TSendResult,
} from './mail';
import { buildMime } from './mime-build';

export type TSmtpSettings = {
  host: string;
  port: number;
  /** SSL: TLS from the first byte (usually 465). TLS: plain, then STARTTLS, which is then required (587). */
  encryption: 'tls' | 'ssl';
  username: string;
  password: string;
  /** XOAUTH2 instead of a password (Google login). */
  accessToken?: string;
};

export type TSmtpOptions = {
  allowLoopback: boolean;
  /** How long to wait for the server at each step; tests shorten it. */
  timeoutMs?: number;
  /** Trust self-signed certificates: only for the loopback test servers. */
  allowSelfSigned?: boolean;
  /** Keep connections open and send over this many at once (sending); 1 and no pool for checks. */
  connections?: number;
};

/** The SMTP envelope of a message: the bare sender address and the one recipient. */
const envelopeOf = (message: TOutgoingMessage) => {
  const [sender] = addressparser(message.from, { flatten: true });
  return { from: message.envelopeFrom ?? (sender?.address || message.from), to: [message.to] };
};

/**
 * What a failed exchange means, in words a user can act on. A reply of the server (it has a
 * code) is read by its code, never by its words: those are the server's, and hold whatever it
 * quotes (a test mailbox's 550 quoting a random address t-…tls…@ read as "The secure
 * connection … failed"). Only what the connection itself reports (no reply, or nodemailer's
 * own TLS failure) is read for a timeout, a certificate or TLS.
 */
const describeFailure = (error: unknown, settings: TSmtpSettings, timeoutMs: number): TransportError => {
  const { code, responseCode, message } = error as { code?: string; responseCode?: number; message?: string };
  const connectionWords = responseCode === undefined ? (message ?? '') : '';
  if (code === 'EAUTH' || responseCode === 535 || responseCode === 534) {
    return new TransportError('The SMTP server refused the username or password.', 'AUTH');
  }
  if (code === 'ETIMEDOUT' || /timeout/i.test(connectionWords)) {
    const seconds = Math.max(1, Math.round(timeoutMs / 1000));
    return new TransportError(
      `The SMTP server at ${settings.host}:${settings.port} did not answer within ${seconds} second${seconds === 1 ? '' : 's'}.`,
      'TIMEOUT',
    );
  }
  if (/certificate/i.test(connectionWords)) {
    return new TransportError(
      `The mail server's TLS certificate is not valid for ${settings.host} (${message}).`,
      'TLS',
    );
  }
  if (code === 'ETLS' || /STARTTLS|TLS|SSL|wrong version number/i.test(connectionWords)) {
    return new TransportError(
      `The secure connection to ${settings.host}:${settings.port} failed${message ? ` (${message.slice(0, 200)})` : ''}. Check the encryption: SSL usually uses port 465, TLS port 587.`,
      'TLS',
    );
  }
  if (code === 'ECONNECTION' || code === 'ECONNREFUSED' || code === 'ESOCKET' || code === 'EDNS') {
    return new TransportError(`Could not connect to ${settings.host}:${settings.port}.`, 'CONNECTION');
  }
  if (responseCode && responseCode >= 500) {
    return new TransportError(`The SMTP server refused the message: ${message ?? responseCode}`, 'REJECTED');
  }
  return new TransportError(`The SMTP server could not be used: ${message ?? 'unknown error'}`, 'CONNECTION');
};

/**
 * An SMTP transport for a user's server. The host is resolved once and refused when it
 * is private (R14); the connection goes to that address, with the name kept for TLS.
 */
export const createSmtpTransport = async (settings: TSmtpSettings, options: TSmtpOptions): Promise<TMailTransport> => {
  const address = await resolvePublicHost(settings.host, { allowLoopback: options.allowLoopback });
  const timeoutMs = options.timeoutMs ?? 15_000;
  const connections = Math.max(1, options.connections ?? 1);
  const transportOptions: SMTPTransport.Options = {
    host: address,
    port: settings.port,
    secure: settings.encryption === 'ssl',
    requireTLS: settings.encryption === 'tls',
    auth: settings.accessToken
      ? { type: 'OAuth2', user: settings.username, accessToken: settings.accessToken }
      : { user: settings.username, pass: settings.password },
    name: 'sendwell.local',
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs * 2,
    tls: { servername: settings.host, rejectUnauthorized: !options.allowSelfSigned },
  };
  const transport = nodemailer.createTransport(transportOptions);

  // Sending talks SMTP through our own sessions (nodemailer's SMTPConnection), so the
  // message is streamed only after the server's 354: a connection lost after the whole
  // message was handed over is an answer that never came (unknown); before it, the server
  // cannot have accepted anything (temporary).
  const openSession = () =>
    new Promise<SMTPConnection>((resolve, reject) => {
      const connection = new SMTPConnection({
        host: address,
        port: settings.port,
        secure: settings.encryption === 'ssl',
        requireTLS: settings.encryption === 'tls',
        name: 'sendwell.local',
        connectionTimeout: timeoutMs,
        greetingTimeout: timeoutMs,
        socketTimeout: timeoutMs * 2,
        tls: { servername: settings.host, rejectUnauthorized: !options.allowSelfSigned },
      });
      connection.on('error', () => {});
      connection.connect((connectError) => {
        if (connectError) {
          connection.close();
          return reject(connectError);
        }
        const credentials = settings.accessToken
          ? { oauth2: new XOAuth2({ user: settings.username, accessToken: settings.accessToken }) }
          : { credentials: { user: settings.username, pass: settings.password } };
        connection.login(credentials as Parameters<SMTPConnection['login']>[0], (loginError) => {
          if (loginError) {
            connection.close();
            return reject(loginError);
          }
          resolve(connection);
        });
      });
    });

  /** Open sessions by worker slot, kept across batches until `close()`. */
  const sessions: (SMTPConnection | null)[] = [];
  const kindOf = (error: unknown, isHandedOver: boolean): TFailureKind => {
    const { responseCode, code } = error as { responseCode?: number; code?: string };
    // A refused login is the account's problem, not the recipient's: try again later.
    if (code === 'EAUTH') return 'temporary';
    if (responseCode && responseCode >= 500) return 'permanent';
    if (responseCode && responseCode >= 400) return 'temporary';
    return isHandedOver ? 'unknown' : 'temporary';
  };

  /**
   * One message over one session. `mayHandOver` (the caller's committed mark, started
   * with the envelope so its round trip overlaps the server's) is awaited after the 354
   * and before the body: refused, the body is never written and the server has nothing.
   */
  const sendOne = async (
    session: { connection: SMTPConnection | null },
    message: TOutgoingMessage,
    mayHandOver: Promise<boolean> = Promise.resolve(true),
  ) => {
    const { variables: _variables, envelopeFrom: _envelopeFrom, ...mime } = message;
    const raw = await buildMime(mime);
    let isHandedOver = false;
    let isPushed = false;
    const body = new Readable({
      highWaterMark: 0,
      read() {
        if (isPushed) {
          isHandedOver = true;
          this.push(null);
          return;
        }
        isPushed = true;
        mayHandOver.then(
          (isAllowed) => (isAllowed ? this.push(raw) : this.destroy(new Error(HANDOVER_REFUSED))),
          (error: unknown) => this.destroy(error as Error),
        );
      },
    });
    try {
      session.connection ??= await openSession();
      const connection = session.connection;
      const info = await new Promise<{ messageId?: string; response?: string }>((resolve, reject) =>
        connection.send(envelopeOf(message), body, (error, sent) => (error ? reject(error) : resolve(sent))),
      );
      return { to: message.to, accepted: true as const, providerId: info.messageId ?? null };
    } catch (error) {
      // After any failure the session starts over; a rejected message may leave it mid-transaction.
      session.connection?.close();
      session.connection = null;
      return {
        to: message.to,
        accepted: false as const,
        error: describeFailure(error, settings, timeoutMs).message,
        kind: kindOf(error, isHandedOver),
      };
    }
  };

  return {
    verify: async () => {
      try {
        await transport.verify();
      } catch (error) {
        throw describeFailure(error, settings, timeoutMs);
      }
    },
    send: async (batch, onResult, sendOptions) => {
      // Up to `connections` sessions at once, each kept open across batches; results keep the batch's order.
      const results: (TSendResult | undefined)[] = new Array(batch.length);
      let next = 0;
      const worker = async (slot: number) => {
        const session = { connection: sessions[slot] ?? null };
        while (next < batch.length && mayStart(sendOptions)) {
          const index = next++;
          const mayHandOver = sendOptions?.beforeHandOver?.(index);
          // Settled even when the session fails before the body is asked for.
          mayHandOver?.catch(() => {});
          results[index] = await sendOne(session, batch[index]!, mayHandOver);
          await onResult?.(index, results[index]!);
        }
        sessions[slot] = session.connection;
      };
      await Promise.all(Array.from({ length: Math.min(connections, batch.length) }, (_, slot) => worker(slot)));
      return results;
    },
    close: () => {
      for (const session of sessions) session?.quit();
      sessions.length = 0;
      transport.close();
    },
  };
};
