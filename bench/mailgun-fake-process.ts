/**
 * The Mailgun contract fake in a process of its own, as Mailgun is a server of its own: B2
 * measures the engine's process, not the fake's parsing of 1,000-recipient calls. Prints
 * one JSON line with the fake's URLs and the address of a small server that answers the
 * fake's accepted counts.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startBenchMailgun } from './seed';

const mailgun = await startBenchMailgun();
const counts = http.createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify(mailgun.accepted));
});
await new Promise<void>((resolve) => counts.listen(0, '127.0.0.1', resolve));
const { port } = counts.address() as AddressInfo;
console.log(`mailgun fake ${JSON.stringify({ urls: mailgun.urls, counts: `http://127.0.0.1:${port}` })}`);
