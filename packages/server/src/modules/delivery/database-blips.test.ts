import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_SECRET_KEY, type TTestApp } from '../../../test/app';
import { freePort } from '../../../test/cluster';
import { startServerProcess, type TServerProcess } from '../../../test/processes';
import { seedSinkSend, sendOutcome, sendStatus, startCountingSink, type TCountingSink } from '../../../test/sending';
import { PROCESS_PATIENCE_MS, waitFor } from '../../../test/wait';
import { startEmbeddedPostgres, type TEmbeddedPostgres } from '../../platform/embedded-postgres';

const RECIPIENTS = 600;
let sink: TCountingSink;
/** A PostgreSQL of this file's own, since the test restarts it. */
let dataDir: string;
let port: number;
let cluster: TEmbeddedPostgres;
let t: TTestApp;

const startCluster = () => startEmbeddedPostgres({ dataDir, port, database: 'sendwell' });

beforeAll(async () => {
  // Each answer takes the server 150 ms: a cut always finds answers on their way to a worker.
  sink = await startCountingSink({ answerDelayMs: 150 });
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sendwell-blips-pg-'));
  port = await freePort();
  cluster = await startCluster();
  t = await startTestApp({}, { databaseUrl: cluster.url });
}, PROCESS_PATIENCE_MS);
afterAll(async () => {
  await t?.close();
  await cluster?.stop();
  await sink?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const startWorker = () =>
  startServerProcess(
    {
      DATABASE_URL: cluster.url,
      SECRET_KEY: TEST_SECRET_KEY,
      ALLOW_LOOPBACK_SMTP: 'true',
      TEST_INBOX: 'false',
      SPAM_TEST_MAILBOX: 'false',
    },
    ['--role', 'worker'],
  );

/** Ends every session of the database but the caller's: the workers' pools, their presence locks, the queue's. */
const terminateSessions = async () => {
  const killer = new pg.Client({ connectionString: cluster.url });
  killer.on('error', () => {});
  await killer.connect();
  try {
    const { rows } = await killer.query(
      `select pg_terminate_backend(pid) from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid()`,
    );
    return rows.length;
  } finally {
    await killer.end();
  }
};

describe('a send through PostgreSQL restarting and sessions being terminated (R38)', () => {
  it('keeps the answers its workers hold, records them once PostgreSQL answers again, and goes on: nobody unknown, nobody twice, no worker down', async () => {
    const workers: TServerProcess[] = [startWorker(), startWorker()];
    try {
      await Promise.all(workers.map((worker) => worker.waitForOutput('worker started')));
      const sendId = await seedSinkSend(t.platform, { sinkPort: sink.port, recipients: RECIPIENTS });

      // First cut: every session terminated (pg_terminate_backend) while answers are on their way.
      await waitFor(() => sink.count() >= RECIPIENTS / 4, PROCESS_PATIENCE_MS, 'a quarter of the send');
      await waitFor(() => sink.inFlight() > 0, PROCESS_PATIENCE_MS, 'messages in flight', 5);
      const inFlightAtTermination = sink.inFlight();
      expect(await terminateSessions()).toBeGreaterThan(0);

      // Second cut: PostgreSQL itself stopped (fast shutdown: sessions end, data is safe) for
      // a few seconds while answers keep arriving, then started again on the same data.
      const atRestart = sink.count();
      await waitFor(() => sink.count() >= atRestart + RECIPIENTS / 4, PROCESS_PATIENCE_MS, 'the send to go on');
      await waitFor(() => sink.inFlight() > 0, PROCESS_PATIENCE_MS, 'messages in flight', 5);
      const inFlightAtRestart = sink.inFlight();
      await cluster.stop();
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      cluster = await startCluster();

      await waitFor(
        async () => (await sendStatus(t.platform, sendId).catch(() => undefined)) === 'finished',
        PROCESS_PATIENCE_MS,
        'the send to finish',
      );

      // Each cut found answers on their way to a worker.
      expect(inFlightAtTermination).toBeGreaterThan(0);
      expect(inFlightAtRestart).toBeGreaterThan(0);
      // The workers lived through both, and said what they did with what they held.
      for (const worker of workers) expect(worker.child.exitCode, worker.output().slice(-3000)).toBeNull();
      expect(workers.map((worker) => worker.output()).join('\n')).toContain('answers in hand are kept');
      // An answer that came while PostgreSQL was away was recorded when it came back, fenced
      // by the claim: nobody is unknown, and nobody was sent a message twice.
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
