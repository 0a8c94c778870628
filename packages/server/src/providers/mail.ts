/**
 * One way to send for every kind of sending account (DESIGN §2 providers): sending,
 * drip campaigns, spam tests and verification hand a batch to a transport and get one
 * result per recipient back, without asking which kind of account it is.
 */
/** What a message says and to whom, as MIME is built from it. */
export type TMessageContent = {
  from: string;
  to: string;
  subject: string;
  html?: string;
  text?: string;
  replyTo?: string;
  headers?: Record<string, string>;
};

export type TOutgoingMessage = TMessageContent & {
  /** Custom variables a provider returns with its events (Mailgun's `v:` fields). */
  variables?: Record<string, string>;
  /** The envelope sender (MAIL FROM), when it is not the From address: a VERP bounce address. */
  envelopeFrom?: string;
};

/**
 * Why a message was not accepted, which decides what happens to its recipient:
 * `temporary` (a 4xx, or nothing was handed over) may be retried; `permanent` (a 5xx)
 * is not, and the address is suppressed; `unknown` (the whole message was handed over
 * and the answer never came) is never resent blindly.
 */
export type TFailureKind = 'temporary' | 'permanent' | 'unknown';

export type TSendResult =
  | { to: string; accepted: true; providerId: string | null }
  | { to: string; accepted: false; error: string; kind: TFailureKind };

export type TSendOptions = {
  startBefore?: number;
  isStopped?: () => boolean;
  /**
   * Runs for each message before the provider can have all of it (for SMTP, after the
   * server's 354, while the body waits; for an HTTP API, before the call). False, or a
   * failure, means the message must not go: it is abandoned before its last byte and
   * answered as a temporary failure. The caller records here that the message may
   * leave, so a process killed afterwards never sends it twice (R1).
   */
  beforeHandOver?: (index: number) => Promise<boolean>;
};

/** The refusal a transport answers when `beforeHandOver` said no. */
export const HANDOVER_REFUSED = "The message was held back: its claim is no longer this worker's.";

/** Whether the next message of a batch may start. */
export const mayStart = ({ startBefore = Number.POSITIVE_INFINITY, isStopped }: TSendOptions = {}) =>
  Date.now() < startBefore && !isStopped?.();

export type TMailTransport = {
  /** Connects and authenticates without sending: the account form's check. */
  verify: () => Promise<void>;
  /**
   * Sends a batch; `onResult` runs for each message as its answer comes (before that
   * connection takes the next one), so the caller can checkpoint message by message.
   * No message starts at or after `startBefore` (ms since the epoch) or once `isStopped`
   * says so: those are left out of the answer (their places stay empty) and of `onResult`.
   */
  send: (
    batch: TOutgoingMessage[],
    onResult?: (index: number, result: TSendResult) => Promise<void>,
    options?: TSendOptions,
  ) => Promise<(TSendResult | undefined)[]>;
  /**
   * Providers that take many recipients in one call (Mailgun, up to `batchSize`): one
   * message whose `%recipient.…%` variables each recipient fills in. One answer for all.
   */
  sendBatch?: (
    template: Omit<TOutgoingMessage, 'to'>,
    recipients: { to: string; variables: Record<string, string> }[],
  ) => Promise<TSendResult[]>;
  batchSize?: number;
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
