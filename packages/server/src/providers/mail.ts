/**
 * One way to send for every kind of sending account (DESIGN §2 providers): sending,
 * drip campaigns, spam tests and verification hand a batch to a transport and get one
 * result per recipient back, without asking which kind of account it is.
 */
export type TOutgoingMessage = {
  from: string;
  to: string;
  subject: string;
  html?: string;
  text?: string;
  replyTo?: string;
  headers?: Record<string, string>;
};

export type TSendResult =
  | { to: string; accepted: true; providerId: string | null }
  | { to: string; accepted: false; error: string };

export type TMailTransport = {
  /** Connects and authenticates without sending: the account form's check. */
  verify: () => Promise<void>;
  send: (batch: TOutgoingMessage[]) => Promise<TSendResult[]>;
  close: () => void;
};

/** A failure the user can act on (wrong password, unreachable host), worded for them. */
export class TransportError extends Error {
  constructor(
    message: string,
    readonly code: 'AUTH' | 'TIMEOUT' | 'CONNECTION' | 'TLS' | 'REJECTED' | 'CONFIG',
  ) {
    super(message);
  }
}
