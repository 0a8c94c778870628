/**
 * B1's SMTP sink in a process of its own, as a receiving server is: B1 measures the
 * engine's process, not the sink's TLS and parsing sharing its one thread (in the same
 * process the sink took more of that thread than the engine's own work). Accepts every
 * message (STARTTLS, any login) and prints one JSON line with its port and the address of
 * a small server that answers how many it has accepted.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

let accepted = 0;
const sink = new SMTPServer({
  logger: false,
  onAuth: (auth, _session, callback) => callback(null, { user: auth.username }),
  onData: (stream, _session, callback) => {
    stream.resume();
    stream.on('end', () => {
      accepted += 1;
      callback();
    });
  },
});
sink.on('error', () => {});
const port = Number(process.env.PORT);
await new Promise<void>((resolve) => sink.listen(port, '127.0.0.1', resolve));
const counts = http.createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ accepted }));
});
await new Promise<void>((resolve) => counts.listen(0, '127.0.0.1', resolve));
const { port: countsPort } = counts.address() as AddressInfo;
console.log(`smtp sink ${JSON.stringify({ port, counts: `http://127.0.0.1:${countsPort}` })}`);
