/**
 * B16 (issue 48): members added per second through the bulk API (JSON, 10,000 a call, an
 * API key over a real socket) against the CSV import of the same rows (the multipart upload
 * with the same key, timed from its first byte until the import reads 'finished', run by the
 * queue's worker in this process), on the same list shape in the same run; then webhook
 * deliveries per second to a local receiver: an endpoint takes `member.subscribed`, a bulk
 * call queues one event per member (in its transaction), and the worker's delivery jobs post
 * them, signed, to an HTTP server on loopback, from the call's answer until the last is
 * delivered. Also the bulk API's rate while that endpoint is registered (what queueing the
 * events costs the call).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApiKey } from '../packages/server/src/modules/api-keys/api-keys.service';
import { createUser } from '../packages/server/src/modules/auth/auth.service';
import { median, type TFigure } from './figures';
import { benchEnvironment, openBenchApp } from './seed';

const ROWS = Number(process.env.BENCH_B16_ROWS ?? 100_000);
const EVENTS = Number(process.env.BENCH_B16_EVENTS ?? 20_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const PER_CALL = 10_000;

const rowsOf = (count: number, seed: string) =>
  Array.from({ length: count }, (_, index) => ({
    email: `person${index}.${seed}@example${index % 97}.com`,
    fullname: `Person ${index}`,
    fields: { city: ['Paris', 'Lisbon', 'Rome', 'Oslo', 'Austin'][index % 5]! },
  }));

const csvOf = (rows: ReturnType<typeof rowsOf>) =>
  Buffer.from(`Name,Email,City\n${rows.map((row) => `"${row.fullname}",${row.email},${row.fields.city}\n`).join('')}`);

const setUp = async () => {
  const { env, cluster } = await benchEnvironment('sendwell_bench_integrations', {
    LOG_LEVEL: 'silent',
    API_KEY_RATE_LIMIT: '100000',
    WEBHOOK_ALLOW_LOOPBACK: 'true',
  });
  const bench = await openBenchApp(env);
  const { platform, app } = bench;
  const user = await createUser(platform, { email: 'bench@example.com', name: 'Bench', password: 'secret123' });
  const account = await platform.db
    .insertInto('sending_accounts')
    .values({ user_id: user.id, name: 'Bench SMTP', provider: 'smtp', driver: 'smtp', username: 'news@bench.test' })
    .returning('id')
    .executeTakeFirstOrThrow();
  // A real socket (the calls and the upload come over HTTP), and the worker role's handlers in
  // this process: the import job and the webhook deliveries.
  await app.listen({ host: '127.0.0.1', port: 0 });
  await platform.queue.work(platform);
  const { key } = await createApiKey(platform, user.id, { name: 'Bench', scopes: ['lists:write', 'lists:read'] });
  const port = (app.server.address() as AddressInfo).port;
  const close = async () => {
    await bench.close();
    await cluster.stop();
  };
  return { platform, userId: user.id, accountId: account.id, key, port, close };
};

type TSetup = Awaited<ReturnType<typeof setUp>>;

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

const request = (setup: TSetup, method: string, path: string, body: Buffer, contentType: string) =>
  new Promise<{ status: number; json: { data?: { id: number }; counts?: Record<string, number>; message?: string } }>(
    (resolve, reject) => {
      const outgoing = http.request(
        {
          host: '127.0.0.1',
          port: setup.port,
          method,
          path,
          agent,
          headers: { authorization: `Bearer ${setup.key}`, 'content-type': contentType, 'content-length': body.length },
        },
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (piece) => {
            text += piece;
          });
          response.on('end', () => resolve({ status: response.statusCode ?? 0, json: JSON.parse(text) }));
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    },
  );

const newList = async (setup: TSetup, alias: string) =>
  (
    await setup.platform.db
      .insertInto('mailing_lists')
      .values({
        user_id: setup.userId,
        account_id: setup.accountId,
        alias,
        domain: 'bench.test',
        address: `${alias}@bench.test`,
        name: alias,
        // Members added by the API are subscribed at once (a double opt-in list would mail each a confirmation).
        double_opt_in: false,
      })
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id;

/** The rows through the bulk API, 10,000 a call, one call after another: members/s from the first byte to the last answer. */
const bulkRate = async (setup: TSetup, listId: number, rows: ReturnType<typeof rowsOf>) => {
  const bodies = [];
  for (let start = 0; start < rows.length; start += PER_CALL) {
    bodies.push(Buffer.from(JSON.stringify({ members: rows.slice(start, start + PER_CALL) })));
  }
  const started = performance.now();
  for (const body of bodies) {
    const answer = await request(setup, 'POST', `/api/mailing-lists/${listId}/members/bulk`, body, 'application/json');
    if (answer.status !== 200) throw new Error(`bulk call answered ${answer.status}: ${answer.json.message}`);
  }
  return rows.length / ((performance.now() - started) / 1000);
};

/** The same rows as a CSV upload with the same key, until the import reads 'finished'. */
const importRate = async (setup: TSetup, listId: number, rows: ReturnType<typeof rowsOf>) => {
  const boundary = `----sendwell-bench-${Date.now()}`;
  const mapping = { hasHeaders: true, emailColumn: 1, nameColumn: 0, fields: [{ column: 2, key: 'city' }] };
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="mapping"\r\n\r\n${JSON.stringify(mapping)}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="rows.csv"\r\nContent-Type: text/csv\r\n\r\n`,
    ),
    csvOf(rows),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const started = performance.now();
  const answer = await request(
    setup,
    'POST',
    `/api/mailing-lists/${listId}/imports`,
    body,
    `multipart/form-data; boundary=${boundary}`,
  );
  if (answer.status !== 200) throw new Error(`upload answered ${answer.status}: ${answer.json.message}`);
  for (;;) {
    const row = await setup.platform.db
      .selectFrom('list_imports')
      .select(['status', 'error'])
      .where('id', '=', answer.json.data!.id)
      .executeTakeFirstOrThrow();
    if (row.status === 'finished') break;
    if (row.status === 'failed') throw new Error(`import failed: ${row.error}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return rows.length / ((performance.now() - started) / 1000);
};

/** A receiver on loopback that answers 200 to everything and counts. */
const startReceiver = async () => {
  let received = 0;
  const server = http.createServer((incoming, response) => {
    incoming.resume();
    incoming.on('end', () => {
      received += 1;
      response.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received: () => received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

export const runB16 = async (): Promise<TFigure> => {
  const setup = await setUp();
  const receiver = await startReceiver();
  try {
    const runs = [];
    for (let run = 0; run < RUNS; run++) {
      const rows = rowsOf(ROWS, `r${run}`);
      const bulk = await bulkRate(setup, await newList(setup, `bulk${run}`), rows);
      const csv = await importRate(setup, await newList(setup, `csv${run}`), rowsOf(ROWS, `c${run}`));
      // Webhooks: an endpoint for member.subscribed, a bulk call's events delivered to the receiver.
      const { id: endpointId } = await setup.platform.db
        .insertInto('webhook_endpoints')
        .values({ user_id: setup.userId, url: receiver.url, event_types: ['member.subscribed'], secret: null })
        .returning('id')
        .executeTakeFirstOrThrow();
      const { encryptSecret } = await import('../packages/server/src/platform/encryption');
      await setup.platform.db
        .updateTable('webhook_endpoints')
        .set({
          secret: encryptSecret(
            setup.platform.secrets.encryptionKey,
            'whsec_bench',
            `webhook_endpoints:${endpointId}:secret`,
          ),
        })
        .where('id', '=', endpointId)
        .execute();
      const before = receiver.received();
      const withHooks = await bulkRate(setup, await newList(setup, `hooked${run}`), rowsOf(EVENTS, `h${run}`));
      const queuedAt = performance.now();
      for (;;) {
        const { count } = await setup.platform.db
          .selectFrom('webhook_deliveries')
          .select((eb) => eb.fn.countAll<number>().as('count'))
          .where('endpoint_id', '=', endpointId)
          .where('status', '<>', 'delivered')
          .executeTakeFirstOrThrow();
        if (Number(count) === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const deliveriesPerSecond = EVENTS / ((performance.now() - queuedAt) / 1000);
      await setup.platform.db
        .updateTable('webhook_endpoints')
        .set({ is_enabled: false })
        .where('id', '=', endpointId)
        .execute();
      const run_ = {
        bulk,
        csv,
        ratio: bulk / csv,
        withHooks,
        deliveriesPerSecond,
        posted: receiver.received() - before,
      };
      console.log(`  run ${run + 1}: ${JSON.stringify(run_)}`);
      runs.push(run_);
    }
    const ratio = median(runs.map((run) => run.ratio));
    const fmt = (value: number) => Math.round(value).toLocaleString('en-US');
    return {
      id: 'B16',
      title: `Members added through the bulk API (JSON, ${PER_CALL.toLocaleString('en-US')} a call, an API key, one call at a time) against the CSV import of the same ${ROWS.toLocaleString('en-US')} rows (upload with the same key to 'finished'); webhook deliveries of ${EVENTS.toLocaleString('en-US')} member.subscribed events to a receiver on loopback`,
      measured: `bulk API ${fmt(median(runs.map((run) => run.bulk)))} members/s, CSV import ${fmt(median(runs.map((run) => run.csv)))} rows/s: ratio ${ratio.toFixed(2)} (median of ${RUNS}); with a webhook endpoint registered the bulk API ${fmt(median(runs.map((run) => run.withHooks)))} members/s (its events queued in each call's transaction); webhook deliveries ${fmt(median(runs.map((run) => run.deliveriesPerSecond)))}/s, signed, 8 in flight per endpoint, from the call's answer until the last was delivered`,
      anchor: "listmonk's API; Mailchimp's batch endpoint",
      goal: 'bulk API ≥ 0.5 of the CSV import’s rate for the same rows',
      isGoalMet: ratio >= 0.5,
      runs,
    };
  } finally {
    await receiver.close();
    await setup.close();
  }
};
