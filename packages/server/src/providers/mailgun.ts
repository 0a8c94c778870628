import type Mailgun from 'mailgun.js';
import {
  HANDOVER_REFUSED,
  mayStart,
  type TFailureKind,
  type TMailTransport,
  type TOutgoingMessage,
  TransportError,
  type TSendResult,
} from './mail';

/** Mailgun's most recipients per messages call. */
export const MAILGUN_BATCH_SIZE = 1000;

export type TMailgunSettings = { apiKey: string; domain: string; region: 'us' | 'eu' };

/**
 * A value as one segment of a Mailgun URL path. mailgun.js puts domains, list addresses and
 * member addresses into its paths as they come (`/v3/${domain}/messages`): a stored domain
 * `x.example.com/../../../v3/routes?` called another endpoint with the user's key, and a
 * member address may hold `?`, `#` or `/` (RFC 5321 allows them before the @). Every such
 * value goes through here; a valid host name or address passes unchanged but for `@`.
 */
export const pathSegment = (value: string) => encodeURIComponent(value);

const statusOf = (error: unknown) => (error as { status?: number }).status;

const describeFailure = (error: unknown, settings: TMailgunSettings): TransportError => {
  const status = statusOf(error);
  if (status === 401 || status === 403) return new TransportError('Mailgun refused this API key.', 'AUTH');
  if (status === 404) {
    return new TransportError(
      `Mailgun has no domain ${settings.domain} for this key in the ${settings.region.toUpperCase()} region. Check the domain and the region.`,
      'CONFIG',
    );
  }
  if (status && status >= 400 && status < 500) {
    return new TransportError(`Mailgun refused the request: ${(error as Error).message}`, 'REJECTED');
  }
  return new TransportError('Mailgun could not be reached. Please try again in a moment.', 'CONNECTION');
};

/**
 * mailgun.js and its HTTP client, loaded with the first call: a process that never calls
 * Mailgun (the admin CLI, an installation without a Mailgun account) never loads them
 * (about 0.15 s of CPU at every start).
 */
let sdk: Promise<Mailgun> | undefined;
const loadSdk = () => {
  sdk ??= Promise.all([import('mailgun.js'), import('form-data')]).then(
    ([{ default: MailgunSdk }, { default: FormData }]) => new MailgunSdk(FormData),
  );
  return sdk;
};

export type TMailgunClient = ReturnType<Mailgun['client']>;

/**
 * A mailgun.js client for the account's API key, at its region's address, made with the
 * first call that needs it (`await clientOf()`).
 */
export const mailgunClient = (
  settings: Pick<TMailgunSettings, 'apiKey' | 'region'>,
  urls: { us: string; eu: string },
  timeoutMs: number,
) => {
  let made: Promise<TMailgunClient> | undefined;
  return () => {
    made ??= loadSdk().then((mailgun) =>
      mailgun.client({ username: 'api', key: settings.apiKey, url: urls[settings.region], timeout: timeoutMs }),
    );
    return made;
  };
};

/**
 * Mailgun's HTTP API through mailgun.js, at the region's base URL (`urls` from
 * configuration: Mailgun's own, or a contract fake in tests).
 */
export const createMailgunTransport = (
  settings: TMailgunSettings,
  urls: { us: string; eu: string },
  { timeoutMs = 20_000 }: { timeoutMs?: number } = {},
): TMailTransport => {
  const clientOf = mailgunClient(settings, urls, timeoutMs);

  /** One messages call; `extra` carries the batch's recipient variables. */
  const post = async (message: Omit<TOutgoingMessage, 'to'>, to: string[], extra: Record<string, string> = {}) => {
    const headers = Object.fromEntries(
      Object.entries(message.headers ?? {}).map(([name, value]) => [`h:${name}`, value]),
    );
    const data = {
      from: message.from,
      to,
      subject: message.subject,
      // Mailgun wants a text or an HTML part; an empty text keeps a blank message valid.
      text: message.text ?? (message.html ? undefined : ''),
      ...(message.html ? { html: message.html } : {}),
      ...(message.replyTo ? { 'h:Reply-To': message.replyTo } : {}),
      ...headers,
      ...Object.fromEntries(Object.entries(message.variables ?? {}).map(([name, value]) => [`v:${name}`, value])),
      ...extra,
    };
    const response = await (await clientOf()).messages.create(
      pathSegment(settings.domain),
      data as Parameters<TMailgunClient['messages']['create']>[1],
    );
    return response.id ?? null;
  };

  /** What a failed call means for its recipients. */
  const failure = (error: unknown) => {
    const status = statusOf(error);
    const code = (error as { code?: string }).code;
    // An HTTP answer tells: 429 and 5xx may pass later, other 4xx will not. No answer: a
    // request that never left (refused, no such host) may go again; one that left is unknown.
    const kind: TFailureKind =
      status === undefined
        ? code === 'ECONNREFUSED' || code === 'ENOTFOUND'
          ? 'temporary'
          : 'unknown'
        : status === 429 || status >= 500
          ? 'temporary'
          : 'permanent';
    return { accepted: false as const, error: describeFailure(error, settings).message, kind };
  };

  const sendOne = async (message: TOutgoingMessage): Promise<TSendResult> => {
    try {
      return { to: message.to, accepted: true, providerId: await post(message, [message.to]) };
    } catch (error) {
      return { to: message.to, ...failure(error) };
    }
  };

  return {
    batchSize: MAILGUN_BATCH_SIZE,
    sendBatch: async (template, recipients) => {
      try {
        const providerId = await post(
          template,
          recipients.map((recipient) => recipient.to),
          {
            'recipient-variables': JSON.stringify(
              Object.fromEntries(recipients.map((recipient) => [recipient.to, recipient.variables])),
            ),
          },
        );
        return recipients.map((recipient) => ({ to: recipient.to, accepted: true as const, providerId }));
      } catch (error) {
        const failed = failure(error);
        return recipients.map((recipient) => ({ to: recipient.to, ...failed }));
      }
    },
    verify: async () => {
      try {
        await (await clientOf()).domains.get(pathSegment(settings.domain));
      } catch (error) {
        throw describeFailure(error, settings);
      }
    },
    send: async (batch, onResult, options) => {
      const results: TSendResult[] = [];
      for (const [index, message] of batch.entries()) {
        if (!mayStart(options)) break;
        const mayHandOver = (await options?.beforeHandOver?.(index).catch(() => false)) ?? true;
        results.push(
          mayHandOver
            ? await sendOne(message)
            : { to: message.to, accepted: false, error: HANDOVER_REFUSED, kind: 'temporary' },
        );
        await onResult?.(index, results[index]!);
      }
      return results;
    },
    close: () => {},
  };
};

/**
 * The DKIM selector Mailgun signs a domain with, from its domain API (`GET /v3/domains/{domain}`
 * through mailgun.js): the sending DNS record named `<selector>._domainkey.<domain>`. Null
 * when Mailgun lists none; throws a `TransportError` when Mailgun cannot be asked.
 */
export const mailgunDkimSelector = async (
  settings: TMailgunSettings,
  urls: { us: string; eu: string },
  { timeoutMs = 5_000 }: { timeoutMs?: number } = {},
) => {
  const clientOf = mailgunClient(settings, urls, timeoutMs);
  try {
    const domain = await (await clientOf()).domains.get(pathSegment(settings.domain));
    const suffix = `._domainkey.${settings.domain.toLowerCase()}`;
    const record = (domain.sending_dns_records ?? []).find(
      (entry) => entry.record_type.toUpperCase() === 'TXT' && entry.name.toLowerCase().endsWith(suffix),
    );
    return record ? record.name.slice(0, record.name.length - suffix.length) : null;
  } catch (error) {
    throw describeFailure(error, settings);
  }
};
