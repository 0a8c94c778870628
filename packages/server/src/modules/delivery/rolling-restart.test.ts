import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_SECRET_KEY, type TTestApp } from '../../../test/app';
import { startServerProcess, type TServerProcess } from '../../../test/processes';
import { seedSinkSend, sendOutcome, sendStatus, startCountingSink, type TCountingSink } from '../../../test/sending';
import { PROCESS_PATIENCE_MS, waitFor } from '../../../test/wait';

const RECIPIENTS = 3_000;
const WORKERS = 3;
let t: TTestApp;
let sink: TCountingSink;

beforeAll(async () => {
  // Each message takes the server 20 ms to answer: a stop always finds messages in flight.
  sink = await startCountingSink({ answerDelayMs: 30 });
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
      TEST_INBOX: 'false',
      SPAM_TEST_MAILBOX: 'false',
    },
    ['--role', 'worker'],
  );

/** The presence keys a worker has held, from its log ('presence lock taken'). */
const keysOf = (worker: TServerProcess) =>
  [...worker.output().matchAll(/"presenceKey":(\d+)/g)].map((match) => Number(match[1]));

/** How many recipients of the send are claimed now under each of these keys. */
const claimsUnder = async (sendId: number, keys: number[]) =>
  (
    await sql<{ claims: number }>`
      select count(*)::int as claims from send_recipients
       where send_id = ${sendId} and status = 'sending' and worker_key = any(${keys}::bigint[])`.execute(t.platform.db)
  ).rows[0]!.claims;

/**
 * A worker holding claims of the send now (one in the middle of sending), with how many it
 * held when seen. That count is the one to keep: asked again a moment later, a worker between
 * two claims holds none (a quiet clean-clone run failed on exactly that).
 */
const sendingWorker = async (sendId: number, workers: TServerProcess[]) => {
  let found: { worker: TServerProcess; claims: number } | undefined;
  await waitFor(
    async () => {
      for (const worker of workers) {
        const claims = await claimsUnder(sendId, keysOf(worker));
        if (claims > 0) {
          found = { worker, claims };
          return true;
        }
      }
      return false;
    },
    PROCESS_PATIENCE_MS,
    'a worker holding claims',
    20,
  ).catch(async (error) => {
    // What a stall looks like, for whoever reads a red run.
    const states = await sql`
      select status, worker_key, count(*)::int from send_recipients where send_id = ${sendId} group by 1, 2`.execute(
      t.platform.db,
    );
    console.error(
      JSON.stringify(states.rows),
      workers.map((worker) => keysOf(worker)),
      workers.map((worker) => worker.output().slice(-2000)),
    );
    throw error;
  });
  return found!;
};

describe('a rolling restart of the workers in the middle of a send (R37)', () => {
  it('stops each sending worker in turn with SIGTERM: it finishes and records what it has in hand, gives back the rest, and another worker goes on; nobody unknown, nobody twice', async () => {
    const workers = Array.from({ length: WORKERS }, startWorker);
    const stopped: { worker: TServerProcess; code: number | null; claimsWhenSignalled: number }[] = [];
    try {
      await Promise.all(workers.map((worker) => worker.waitForOutput('worker started')));
      const sendId = await seedSinkSend(t.platform, { sinkPort: sink.port, recipients: RECIPIENTS });
      for (let round = 1; round <= WORKERS; round++) {
        // A deploy replaces the workers one by one while the send runs.
        const threshold = Math.floor((RECIPIENTS * round) / (WORKERS + 2));
        await waitFor(() => sink.count() >= threshold, PROCESS_PATIENCE_MS, `${threshold} messages`);
        const { worker, claims: claimsWhenSignalled } = await sendingWorker(sendId, workers);
        const code = await worker.stop('SIGTERM');
        stopped.push({ worker, code, claimsWhenSignalled });
        // It left nothing claimed behind: what it held was recorded or given back before it
        // exited (a claim left would be taken over as a dead worker's, its messages in hand
        // `unknown`).
        expect(await claimsUnder(sendId, keysOf(worker))).toBe(0);
        // Its replacement starts beside the others; the next stop does not wait for it (a
        // start takes far longer than this send on a loaded machine): whoever sends then is stopped.
        workers.splice(workers.indexOf(worker), 1, startWorker());
      }
      await waitFor(
        async () => (await sendStatus(t.platform, sendId)) === 'finished',
        PROCESS_PATIENCE_MS,
        'the send to finish',
      );

      for (const { worker, code, claimsWhenSignalled } of stopped) {
        // Each was stopped in the middle of sending, and stopped in order, not by the 20 s deadline.
        expect(claimsWhenSignalled).toBeGreaterThan(0);
        expect(code, worker.output().slice(-3000)).toBe(0);
        expect(worker.output()).toContain('the send goes on in another worker');
        expect(worker.output()).not.toContain('shutdown took longer');
        expect(worker.output()).not.toContain('job queue error');
      }
      expect(sink.twice()).toEqual([]);
      const { byStatus, send } = await sendOutcome(t.platform, sendId);
      expect([...byStatus.keys()]).toEqual(['sent']);
      expect(sink.received.size).toBe(RECIPIENTS);
      expect(send).toMatchObject({ status: 'finished', sent_count: RECIPIENTS, unknown_count: 0 });
    } finally {
      await Promise.all(workers.map((worker) => worker.stop('SIGKILL')));
    }
  }, 900_000);
});
