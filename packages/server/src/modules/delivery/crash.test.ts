import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_SECRET_KEY, type TTestApp } from '../../../test/app';
import { startServerProcess, type TServerProcess } from '../../../test/processes';
import { seededRandom } from '../../../test/seeded-random';
import { seedSinkSend, sendOutcome, sendStatus, startCountingSink, type TCountingSink } from '../../../test/sending';
import { PROCESS_PATIENCE_MS, waitFor } from '../../../test/wait';

const RECIPIENTS = 10_000;
let t: TTestApp;
let sink: TCountingSink;

beforeAll(async () => {
  sink = await startCountingSink();
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
  await sink?.close();
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

describe('a worker killed again and again in the middle of a send (R1, R28)', () => {
  it('sends nobody twice and nobody never: a message that may have left is unknown, the rest are sent once; each dead worker’s claims are taken back before their lease ends', async () => {
    const sendId = await seedSinkSend(t.platform, {
      sinkPort: sink.port,
      recipients: RECIPIENTS,
      subject: 'Crash test',
    });
    // Kill points at random through the send, each a number of messages the receiving
    // server has committed (it commits each message before it answers). The seed is logged;
    // TEST_SEED replays a run's kill points and delays.
    const random = seededRandom('crash.test');
    const killAt = Array.from({ length: KILLS }, () => Math.floor(RECIPIENTS * (0.05 + random.next() * 0.85))).sort(
      (a, b) => a - b,
    );
    /** The claims each killed worker held, with when their lease would have ended (the database's clock). */
    const claimsAtKills: { id: number; lease_until: Date }[] = [];
    let worker: TServerProcess = startWorker();
    try {
      for (const threshold of killAt) {
        await waitFor(() => sink.count() >= threshold, PROCESS_PATIENCE_MS, `${threshold} messages`).catch(
          async (error) => {
            // What a stall looks like, for whoever reads a red run.
            const states = await sql`
            select status, error, worker_key, count(*)::int from send_recipients
             where send_id = ${sendId} group by 1, 2, 3`.execute(t.platform.db);
            console.error(JSON.stringify(states.rows), worker.output().slice(-3000));
            throw error;
          },
        );
        // A random moment after the threshold: between mark and body, mid-body, after the answer…
        await new Promise((resolve) => setTimeout(resolve, random.next() * 50));
        await worker.stop('SIGKILL');
        const atKill = sink.count();
        claimsAtKills.push(...(await claimsHeld(sendId)));
        worker = startWorker();
        // The new worker finds the dead one's claims by itself: no watchdog is called here.
        await waitFor(
          async () => sink.count() > atKill || (await sendStatus(t.platform, sendId)) === 'finished',
          PROCESS_PATIENCE_MS,
          'the send to go on after the restart',
        );
      }
      await waitFor(
        async () => (await sendStatus(t.platform, sendId)) === 'finished',
        PROCESS_PATIENCE_MS,
        'the send to finish',
      );
    } finally {
      await worker.stop('SIGKILL');
    }

    // The dead workers' claims were taken over when they died, not when their lease ran out
    // (R28): each claimed recipient's next event (unknown when its message was in hand, else
    // accepted when sent again) came before its lease would have ended, by the database's clock.
    expect(claimsAtKills.length).toBeGreaterThan(0);
    expect(await takenBackAfterLease(claimsAtKills)).toEqual([]);

    // Nobody twice.
    expect(sink.twice()).toEqual([]);

    const { rows, byStatus, send } = await sendOutcome(t.platform, sendId);
    // Every recipient is sent, or unknown because a worker died while its message was being handed over.
    expect([...byStatus.keys()].filter((status) => status !== 'sent' && status !== 'unknown')).toEqual([]);
    const unknown = byStatus.get('unknown') ?? [];
    // At most one message in hand per connection (4) per kill.
    expect(unknown.length).toBeLessThanOrEqual(KILLS * 4);
    for (const row of unknown) expect(row.error).toMatch(/may have been delivered/);
    // A sent recipient got exactly one message; nobody who was never handed over was lost.
    for (const row of byStatus.get('sent') ?? []) expect(sink.received.get(row.email)?.length, row.email).toBe(1);
    const lost = rows.filter((row) => row.status === 'sent' && !sink.received.has(row.email));
    expect(lost).toEqual([]);
    expect(sink.received.size).toBeGreaterThanOrEqual(RECIPIENTS - unknown.length);

    expect(send).toMatchObject({
      status: 'finished',
      sent_count: RECIPIENTS - unknown.length,
      unknown_count: unknown.length,
      recipients_count: RECIPIENTS,
    });
  }, 600_000);
});

/** The claims of a send held now (by the worker just killed), with their lease ends. */
const claimsHeld = async (sendId: number) =>
  (
    await sql<{ id: number; lease_until: Date }>`
      select id, lease_until from send_recipients where send_id = ${sendId} and status = 'sending'`.execute(
      t.platform.db,
    )
  ).rows;

/** Those of `claims` with no delivery event before their lease's end: taken back only after it, or never. */
const takenBackAfterLease = async (claims: { id: number; lease_until: Date }[]) =>
  (
    await sql<{ id: number }>`
      select c.id from unnest(${claims.map((claim) => claim.id)}::bigint[],
                              ${claims.map((claim) => claim.lease_until)}::timestamptz[]) as c (id, lease_until)
       where not exists (select 1 from delivery_events e
                          where e.recipient_id = c.id and e.occurred_at < c.lease_until
                            -- this claim's own events, not an earlier attempt's
                            and e.occurred_at >= c.lease_until - ${LEASE_SECONDS} * interval '1 second')`.execute(
      t.platform.db,
    )
  ).rows.map((row) => row.id);
