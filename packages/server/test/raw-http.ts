import net from 'node:net';

export type TRawResponse = {
  status: number;
  headers: Record<string, string>;
  /** Every Set-Cookie line, which `headers` would fold into one. */
  setCookies: string[];
  body: string;
};

type TRawRequest = {
  method: string;
  /** The request target exactly as written on the request line: a path, or absolute-form. */
  target: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** Where the socket comes from; any loopback address works on Linux. */
  localAddress?: string;
};

const decodeChunked = (raw: string): string => {
  let body = '';
  let rest = raw;
  for (;;) {
    const lineEnd = rest.indexOf('\r\n');
    const size = Number.parseInt(rest.slice(0, lineEnd), 16);
    if (!size) return body;
    body += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
};

/**
 * One HTTP/1.1 request written by hand on a fresh socket, for what `app.inject` and fetch
 * would tidy up first: absolute-form request lines, `%xx` in the path, doubled slashes.
 */
export const rawRequest = (port: number, request: TRawRequest): Promise<TRawResponse> =>
  new Promise((resolve, reject) => {
    const payload =
      request.body === undefined ? '' : typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
    const headers: Record<string, string> = {
      host: `127.0.0.1:${port}`,
      connection: 'close',
      ...(payload ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) } : {}),
      ...request.headers,
    };
    const head = [
      `${request.method} ${request.target} HTTP/1.1`,
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    ].join('\r\n');
    const socket = net.connect({ port, host: '127.0.0.1', localAddress: request.localAddress });
    const chunks: Buffer[] = [];
    socket.on('connect', () => socket.write(`${head}\r\n\r\n${payload}`));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const [statusLine = '', ...headerLines] = text.slice(0, split).split('\r\n');
      const responseHeaders: Record<string, string> = {};
      const setCookies: string[] = [];
      for (const line of headerLines) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon).trim().toLowerCase();
        const value = line.slice(colon + 1).trim();
        if (name === 'set-cookie') setCookies.push(value);
        responseHeaders[name] = value;
      }
      const rawBody = text.slice(split + 4);
      resolve({
        status: Number(statusLine.split(' ')[1]),
        headers: responseHeaders,
        setCookies,
        body: responseHeaders['transfer-encoding'] === 'chunked' ? decodeChunked(rawBody) : rawBody,
      });
    });
  });

/** The `name=value` pairs a response sets, for the next request's Cookie header. */
export const cookiesOf = (response: TRawResponse): Record<string, string> =>
  Object.fromEntries(
    response.setCookies.map((line) => {
      const [pair = ''] = line.split(';');
      const equals = pair.indexOf('=');
      return [pair.slice(0, equals), pair.slice(equals + 1)];
    }),
  );

export const cookieHeader = (cookies: Record<string, string>) =>
  Object.entries(cookies)
    .map(([name, value]) => `${name}=${value}`)
    .join('; ');
