/**
 * mailauth 4.13 names `index.d.ts` in its package.json but ships none: the part of its API
 * Sendwell uses (lib/mailauth.js `authenticate`, `dkimSign` in tests), as its JSDoc describes it.
 */
declare module 'mailauth' {
  export type TResolver = (name: string, type: string) => Promise<unknown>;
  export type TAuthenticateOptions = {
    ip?: string;
    helo?: string;
    sender?: string;
    mta?: string;
    resolver?: TResolver;
    trustReceived?: boolean;
    minBitLength?: number;
    disableArc?: boolean;
    disableDmarc?: boolean;
    disableBimi?: boolean;
  };
  export type TAuthenticateResult = {
    dkim: { results?: unknown[]; headerFrom?: string[]; envelopeFrom?: string | false };
    spf: unknown;
    dmarc: unknown;
    arc: unknown;
    bimi: unknown;
    receivedChain?: unknown[];
    /** The Received-SPF and Authentication-Results headers a receiver would add. */
    headers: string;
  };
  export function authenticate(
    input: Buffer | string | NodeJS.ReadableStream,
    options: TAuthenticateOptions,
  ): Promise<TAuthenticateResult>;
  export function dkimSign(
    input: Buffer | string,
    options: {
      signatureData: { signingDomain: string; selector: string; privateKey: string; algorithm?: string }[];
      /** The signature's time (t=). Without it the clock is read twice, once per copy of t= (see test/spam-corpus.ts). */
      signTime?: Date;
    },
  ): Promise<{ signatures: string; errors: unknown[] }>;
}
