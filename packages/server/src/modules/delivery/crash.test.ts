import { sql } from 'kysely';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedUser, startTestApp, TEST_SECRET_KEY, type TTestApp } from '../../../test/app';
import { freePort } from '../../../test/cluster';
import { startServerProcess, type TServerProcess } from '../../../test/processes';
import { waitFor } from '../../../test/wait';
import { sealSecret } from '../accounts/secrets';
import { createSend } from './delivery.service';

const RECIPIENTS = 10_000;
let t: TTestApp;
let sink: SMTPServer;
let sinkPort: number;
/** Message-IDs received, by recipient. */
const received = new Map<string, string[]>();
let receivedCount = 0;

beforeAll(async () => {
  sink = new SMTPServer({
    logger: false,
    onAuth: (auth, _session, callback) => callback(null, { user: auth.username }),
    onData: (stream, session, callback) => {
      let head = '';
      stream.on('data', (chunk: Buffer) => {
        if (head.length < 4096) head += chunk.toString();
      });
      stream.on('end', () => {
        const to = session.envelope.rcptTo[0]!.address;
        const messageId = head.match(/^Message-ID:\s*(\S+)/im)?.[1] ?? '';
        received.set(to, [...(received.get(to) ?? []), messageId]);
        receivedCount += 1;
        callback();
      });
    },
  });
  // The killed worker's connections end in resets: expected here.
  sink.on('error', () => {});
  sinkPort = await freePort();
  await new Promise<void>((resolve) => sink.listen(sinkPort, '127.0.0.1', resolve));
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
  await new Promise<void>((resolve) => sink.close(() => resolve()));
});

const startWorker = () =>
  startServerProcess(
    {
      DATABASE_URL: t.databaseUrl,
      SECRET_KEY: TEST_SECRET_KEY,
      ALLOW_LOOPBACK_SMTP: 'true',
      // The default lease: recovery must not wait for it (R28).
      SEND_LEASE_SECONDS: String(LEASE_SECONDS),
      TEST_INBOX: 'false',
    },
    ['--role', 'worker'],
  );

const LEASE_SECONDS = 120;
const KILLS = 5;

const seedSend = async () => {
  const user = await seedUser(t.platform, { planId: 3 });
  const { id: accountId } = await t.platform.db
    .insertInto('sending_accounts')
    .values({
      user_id: user.id,
      name: 'Sink',
      provider: 'smtp',
      driver: 'smtp',
      username: 'mailer',
      host: '127.0.0.1',
      port: sinkPort,
      encryption: 'tls',
      from_address: 'news@acme.test',
      // No daily cap here: this test is about crashes, not the cap (dispatch.test.ts has it).
      mail_per_day: 1_000_000,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await t.platform.db
    .updateTable('sending_accounts')
    .set({ password_encrypted: sealSecret(t.platform, accountId, 'password', 'any') })
    .where('id', '=', accountId)
    .execute();
  const { id: listId } = await t.platform.db
    .insertInto('mailing_lists')
    .values({
      user_id: user.id,
      account_id: accountId,
      alias: 'all',
      domain: 'acme.test',
      address: 'all@acme.test',
      name: 'All',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await sql`
    insert into list_members (user_id, list_id, account_id, email)
    select ${user.id}, ${listId}, ${accountId}, 'r' || n || '@example.com' from generate_series(1, ${RECIPIENTS}) n`.execute(
    t.platform.db,
  );
  return createSend(t.platform, user.id, {
    accountId,
    fromName: 'Acme',
    fromAddress: 'news@acme.test',
    subject: 'Crash test',
    html: '<p>Hello</p>',
    listIds: [listId],
  });
};

describe('a worker killed again and again in the middle of a send (R1, R28)', () => {
  it('sends nobody twice and nobody never: a message that may have left is unknown, the rest are sent once; each restart goes on before any lease ends', async () => {
    const sendId = await seedSend();
    // Kill points at random through the send, each a number of messages the receiving
    // server has committed (it commits each message before it answers).
    const killAt = Array.from({ length: KILLS }, () => Math.floor(RECIPIENTS * (0.05 + Math.random() * 0.85))).sort(
      (a, b) => a - b,
    );
    const recoveries: number[] = [];
    let worker: TServerProcess = startWorker();
    try {
      for (const threshold of killAt) {
        await waitFor(() => receivedCount >= threshold, 120_000, `${threshold} messages`).catch(async (error) => {
          // What a stall looks like, for whoever reads a red run.
          const states = await sql`
            select status, error, worker_key, count(*)::int from send_recipients
             where send_id = ${sendId} group by 1, 2, 3`.execute(t.platform.db);
          console.error(JSON.stringify(states.rows), worker.output().slice(-3000));
          throw error;
        });
        // A random moment after the threshold: between mark and body, mid-body, after the answer…
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 50));
        await worker.stop('SIGKILL');
        const atKill = receivedCount;
        const restartedAt = Date.now();
        worker = startWorker();
        // The new worker finds the dead one's claims by itself: no watchdog is called here.
        await waitFor(
          async () => receivedCount > atKill || (await sendStatus(sendId)) === 'finished',
          120_000,
          'the send to go on after the restart',
        );
        recoveries.push(Date.now() - restartedAt);
      }
      await waitFor(async () => (await sendStatus(sendId)) === 'finished', 120_000, 'the send to finish');
    } finally {
      await worker.stop('SIGKILL');
    }

    // The dead worker's claims were taken over when it died, not when their lease ran out.
    for (const ms of recoveries) expect(ms).toBeLessThan(LEASE_SECONDS * 1000);

    // Nobody twice.
    const twice = [...received].filter(([, ids]) => ids.length > 1).map(([to]) => to);
    expect(twice).toEqual([]);

    const rows = await t.platform.db
      .selectFrom('send_recipients')
      .select(['email', 'status', 'error'])
      .where('send_id', '=', sendId)
      .execute();
    const byStatus = new Map<string, typeof rows>();
    for (const row of rows) byStatus.set(row.status, [...(byStatus.get(row.status) ?? []), row]);
    // Every recipient is sent, or unknown because a worker died while its message was being handed over.
    expect([...byStatus.keys()].filter((status) => status !== 'sent' && status !== 'unknown')).toEqual([]);
    const unknown = byStatus.get('unknown') ?? [];
    // At most one message in hand per connection (4) per kill.
    expect(unknown.length).toBeLessThanOrEqual(KILLS * 4);
    for (const row of unknown) expect(row.error).toMatch(/may have been delivered/);
    // A sent recipient got exactly one message; nobody who was never handed over was lost.
    for (const row of byStatus.get('sent') ?? []) expect(received.get(row.email)?.length, row.email).toBe(1);
    const lost = rows.filter((row) => row.status === 'sent' && !received.has(row.email));
    expect(lost).toEqual([]);
    expect(received.size).toBeGreaterThanOrEqual(RECIPIENTS - unknown.length);

    const send = await t.platform.db.selectFrom('sends').selectAll().where('id', '=', sendId).executeTakeFirstOrThrow();
    expect(send).toMatchObject({
      status: 'finished',
      sent_count: RECIPIENTS - unknown.length,
      unknown_count: unknown.length,
      recipients_count: RECIPIENTS,
    });
  }, 600_000);
});

const sendStatus = async (sendId: number) =>
  (await t.platform.db.selectFrom('sends').select('status').where('id', '=', sendId).executeTakeFirstOrThrow()).status;
