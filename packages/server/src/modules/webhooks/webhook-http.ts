import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { HttpError } from '../../platform/errors';
import { resolvePublicHost } from '../../platform/network-guard';

/** What a receiver answered (or why nothing came back), as the log shows it. */
export type TWebhookAnswer = { statusCode: number | null; response: string; durationMs: number };

/** The start of a receiver's answer kept in the log (R30: bounded per attempt). */
const RESPONSE_LIMIT = 500;

/**
 * Keep-alive agents: a receiver of many events answers them over a few connections. A
 * socket is opened only to an address the guard passed (below); reusing it later reaches
 * that same address.
 */
const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 16 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 16 }),
};

const clip = (text: string) => (text.length > RESPONSE_LIMIT ? `${text.slice(0, RESPONSE_LIMIT - 1)}…` : text);

/**
 * The address a webhook may be delivered to (R35 via `platform/network-guard.ts`): the URL's
 * host resolved once, every address public (loopback only where the operator allows it for
 * local development), answered so the connection goes to it. Said at save and before every
 * attempt, so a name that resolves somewhere private later is refused then.
 */
export const guardWebhookUrl = async (url: string, { allowLoopback }: { allowLoopback: boolean }) => {
  const target = new URL(url);
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    throw new HttpError(422, 'Enter an http:// or https:// address.', 'URL_INVALID');
  }
  const address = await resolvePublicHost(target.hostname, { allowLoopback });
  return { target, address };
};

/**
 * POSTs one delivery and answers what came back: the status and the start of the body,
 * or the error. The host is resolved and checked first and the connection made to the
 * address checked (the `lookup` answers only it), so DNS cannot move it in between.
 * Redirects are not followed: a 3xx is an answer like any other, and not a success.
 */
export const postWebhook = async (
  url: string,
  body: string,
  headers: Record<string, string>,
  { allowLoopback, timeoutMs }: { allowLoopback: boolean; timeoutMs: number },
): Promise<TWebhookAnswer> => {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let guarded: Awaited<ReturnType<typeof guardWebhookUrl>>;
  try {
    guarded = await guardWebhookUrl(url, { allowLoopback });
  } catch (error) {
    return { statusCode: null, response: clip((error as Error).message), durationMs: elapsed() };
  }
  const { target, address } = guarded;
  const family = isIP(address);
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all)
      (callback as (error: null, addresses: { address: string; family: number }[]) => void)(null, [
        { address, family },
      ]);
    else callback(null, address, family);
  };
  const client = target.protocol === 'https:' ? https : http;
  return new Promise<TWebhookAnswer>((resolve) => {
    let isDone = false;
    const finish = (answer: Omit<TWebhookAnswer, 'durationMs'>) => {
      if (isDone) return;
      isDone = true;
      clearTimeout(timer);
      resolve({ ...answer, response: clip(answer.response), durationMs: elapsed() });
    };
    const request = client.request(target, {
      method: 'POST',
      agent: agents[target.protocol as 'http:' | 'https:'],
      lookup,
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        'user-agent': 'Sendwell-Webhooks/1',
        ...headers,
      },
    });
    const timer = setTimeout(() => {
      request.destroy();
      finish({ statusCode: null, response: `No answer within ${Math.round(timeoutMs / 100) / 10} s.` });
    }, timeoutMs);
    request.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        if (text.length < RESPONSE_LIMIT) text += chunk;
      });
      response.on('end', () => finish({ statusCode: response.statusCode ?? null, response: text }));
      response.on('error', () => finish({ statusCode: response.statusCode ?? null, response: text }));
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      const reason =
        error.code === 'ECONNREFUSED'
          ? 'The connection was refused.'
          : error.code === 'ECONNRESET'
            ? 'The connection was closed before an answer came.'
            : `The request failed: ${error.message}`;
      finish({ statusCode: null, response: reason });
    });
    request.end(body);
  });
};
