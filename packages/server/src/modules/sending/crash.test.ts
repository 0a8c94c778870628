import { sql } from 'kysely';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedUser, startTestApp, TEST_SECRET_KEY, type TTestApp } from '../../../test/app';
import { freePort } from '../../../test/cluster';
import { startServerProcess, type TServerProcess } from '../../../test/processes';
import { sealSecret } from '../accounts/secrets';
import { resumeStalledSends } from './dispatch';
import { createSend } from './sending.service';

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

const waitFor = async (condition: () => Promise<boolean> | boolean, timeoutMs: number, what: string) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

const startWorker = () =>
  startServerProcess(
    {
      DATABASE_URL: t.databaseUrl,
      SECRET_KEY: TEST_SECRET_KEY,
      ALLOW_LOOPBACK_SMTP: 'true',
      SEND_LEASE_SECONDS: '3',
      TEST_INBOX: 'false',
    },
    ['--role', 'worker'],
  );

describe('a worker killed in the middle of a send (R1)', () => {
  it('loses nobody: after a restart every recipient has the message, and the send finishes only then', async () => {
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
    const sendId = await createSend(t.platform, user.id, {
      accountId,
      fromName: 'Acme',
      fromAddress: 'news@acme.test',
      subject: 'Crash test',
      html: '<p>Hello</p>',
      listIds: [listId],
    });

    let worker: TServerProcess = startWorker();
    try {
      await waitFor(() => receivedCount >= RECIPIENTS / 4, 60_000, 'a quarter of the messages');
      await worker.stop('SIGKILL');
      const status = await t.platform.db
        .selectFrom('sends')
        .select('status')
        .where('id', '=', sendId)
        .executeTakeFirstOrThrow();
      expect(status.status).toBe('sending');
      const atKill = receivedCount;
      expect(atKill).toBeLessThan(RECIPIENTS);

      worker = startWorker();
      // The minute's watchdog, now: the dead worker's job is still "active" in the queue.
      await waitFor(async () => (await resumeStalledSends(t.platform)) >= 0, 1000, 'the watchdog');
      await waitFor(
        async () => {
          const row = await t.platform.db
            .selectFrom('sends')
            .select('status')
            .where('id', '=', sendId)
            .executeTakeFirstOrThrow();
          if (row.status !== 'finished') await resumeStalledSends(t.platform);
          return row.status === 'finished';
        },
        90_000,
        'the send to finish',
      );
    } finally {
      await worker.stop('SIGKILL');
    }

    // Nobody lost.
    expect(received.size).toBe(RECIPIENTS);
    const states = await sql<{ status: string; count: number }>`
      select status, count(*)::int as count from send_recipients where send_id = ${sendId} group by status`.execute(
      t.platform.db,
    );
    expect(states.rows).toEqual([{ status: 'sent', count: RECIPIENTS }]);
    const send = await t.platform.db.selectFrom('sends').selectAll().where('id', '=', sendId).executeTakeFirstOrThrow();
    expect(send).toMatchObject({ status: 'finished', sent_count: RECIPIENTS, recipients_count: RECIPIENTS });
    // Only a message the dead worker was writing can have gone twice (one per open
    // connection at most), and it is the same message: the same Message-ID.
    const twice = [...received.values()].filter((ids) => ids.length > 1);
    expect(twice.length).toBeLessThanOrEqual(4);
    for (const ids of twice) expect(new Set(ids).size).toBe(1);
  }, 180_000);
});
