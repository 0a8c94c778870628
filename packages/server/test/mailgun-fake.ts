import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type TMailgunRequest = { region: string; method: string; path: string; body: string; key: string | null };

/**
 * A contract fake of the Mailgun HTTP API parts Sendwell calls, for mailgun.js pointed at
 * it. Two base URLs, `${url}/us` and `${url}/eu`, stand for the two regions; a domain
 * lives in one region. As Mailgun documents: HTTP basic auth with user `api`, 401
 * `Forbidden` for a wrong key, 404 for a domain the key does not own,
 * `GET /v4/domains/{domain}`, `POST /v3/{domain}/messages` (multipart) answering
 * `{id, message: 'Queued. Thank you.'}`.
 */
export const startMailgunFake = async ({
  key,
  domains,
}: {
  key: string;
  domains: { name: string; region: 'us' | 'eu' }[];
}) => {
  const requests: TMailgunRequest[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const match = (request.url ?? '').match(/^\/(us|eu)(\/[^?]*)/);
      const region = match?.[1] ?? '';
      const path = match?.[2] ?? request.url ?? '';
      const auth = request.headers.authorization?.startsWith('Basic ')
        ? Buffer.from(request.headers.authorization.slice(6), 'base64').toString()
        : null;
      const given = auth?.startsWith('api:') ? auth.slice(4) : null;
      requests.push({ region, method: request.method ?? '', path, body: Buffer.concat(chunks).toString(), key: given });
      const send = (status: number, body: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(body));
      };
      if (given !== key) {
        response.writeHead(401, { 'content-type': 'text/plain' });
        response.end('Forbidden');
        return;
      }
      const owns = (name: string | undefined) =>
        domains.some((domain) => domain.name === name && domain.region === region);
      const domainMatch = path.match(/^\/v4\/domains\/([^/]+)$/);
      if (request.method === 'GET' && domainMatch) {
        const name = decodeURIComponent(domainMatch[1]!);
        if (!owns(name)) return send(404, { message: 'Domain not found' });
        return send(200, {
          domain: { name, state: 'active', type: 'custom', created_at: new Date().toUTCString() },
          receiving_dns_records: [],
          sending_dns_records: [],
        });
      }
      const messageMatch = path.match(/^\/v3\/([^/]+)\/messages$/);
      if (request.method === 'POST' && messageMatch) {
        const name = decodeURIComponent(messageMatch[1]!);
        if (!owns(name)) return send(404, { message: 'Domain not found' });
        return send(200, { id: `<${randomBytes(8).toString('hex')}@${name}>`, message: 'Queued. Thank you.' });
      }
      return send(404, { message: 'Not found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    urls: { us: `${url}/us`, eu: `${url}/eu` },
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
