import nodemailer from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import { resolvePublicHost } from '../platform/network-guard';
import { type TMailTransport, type TOutgoingMessage, TransportError, type TSendResult } from './mail';

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
};

const describeFailure = (error: unknown, settings: TSmtpSettings, timeoutMs: number): TransportError => {
  const { code, responseCode, message } = error as { code?: string; responseCode?: number; message?: string };
  if (code === 'EAUTH' || responseCode === 535 || responseCode === 534) {
    return new TransportError('The SMTP server refused the username or password.', 'AUTH');
  }
  if (code === 'ETIMEDOUT' || /timeout/i.test(message ?? '')) {
    const seconds = Math.max(1, Math.round(timeoutMs / 1000));
    return new TransportError(
      `The SMTP server at ${settings.host}:${settings.port} did not answer within ${seconds} second${seconds === 1 ? '' : 's'}.`,
      'TIMEOUT',
    );
  }
  if (/certificate/i.test(message ?? '')) {
    return new TransportError(
      `The mail server's TLS certificate is not valid for ${settings.host} (${message}).`,
      'TLS',
    );
  }
  if (code === 'ETLS' || /STARTTLS|TLS|SSL|wrong version number/i.test(message ?? '')) {
    return new TransportError(
      `The secure connection to ${settings.host}:${settings.port} failed. Check the encryption: SSL usually uses port 465, TLS port 587.`,
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

  const sendOne = async (message: TOutgoingMessage): Promise<TSendResult> => {
    try {
      const info = await transport.sendMail(message);
      return { to: message.to, accepted: true, providerId: info.messageId ?? null };
    } catch (error) {
      return { to: message.to, accepted: false, error: describeFailure(error, settings, timeoutMs).message };
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
    send: async (batch) => {
      const results: TSendResult[] = [];
      for (const message of batch) results.push(await sendOne(message));
      return results;
    },
    close: () => transport.close(),
  };
};
