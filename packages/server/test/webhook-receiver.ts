import http from 'node:http';
import { freePort } from './cluster';

export type TReceived = {
  headers: http.IncomingHttpHeaders;
  body: string;
  json: { id: string; type: string; data: Record<string, unknown> };
};

/**
 * A webhook receiver on loopback: keeps every request in arrival order and answers each
 * with the status `answer` picks (200 unless told), as an integrator's endpoint would.
 */
export const startWebhookReceiver = async (answer: (received: TReceived, index: number) => number = () => 200) => {
  const received: TReceived[] = [];
  const server = http.createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => {
      const entry = { headers: request.headers, body, json: JSON.parse(body) } as TReceived;
      received.push(entry);
      const status = answer(entry, received.length - 1);
      response.writeHead(status, { 'content-type': 'text/plain' });
      response.end(status < 300 ? 'thanks' : `failed with ${status}`);
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port,
    url: `http://127.0.0.1:${port}/hooks/sendwell`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
