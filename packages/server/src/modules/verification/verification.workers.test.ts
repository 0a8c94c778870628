import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, seedUser, startTestApp, type TAgent, TEST_SECRET_KEY, type TTestApp } from '../../../test/app';
import { startServerProcess, type TServerProcess } from '../../../test/processes';
import { startVerifyPeers } from '../../../test/verify-peers';
import { waitFor } from '../../../test/wait';

/**
 * R36 across processes: verification jobs run by two real worker processes (the server as
 * `npm start` runs it, role worker) on one database, against the local DNS and SMTP peers.
 * The connections to one mail server stay within VERIFY_CONNECTIONS_PER_DOMAIN whichever
 * process opens them, and a worker killed while holding them does not keep them.
 */

let t: TTestApp;
let peers: Awaited<ReturnType<typeof startVerifyPeers>>;
const workers: TServerProcess[] = [];

const verifyEnv = () => ({
  VERIFY_DNS_SERVERS: `127.0.0.1:${peers.dnsPort}`,
  VERIFY_SMTP_PORT: String(peers.smtpPort),
  VERIFY_STEP_TIMEOUT_MS: '5000',
  VERIFY_ALLOW_LOOPBACK: 'true',
  VERIFY_CONNECTIONS_PER_DOMAIN: '2',
});

beforeAll(async () => {
  peers = await startVerifyPeers();
  t = await startTestApp(verifyEnv());
});
afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.stop()));
  await t?.close();
  await peers?.close();
});

/** A worker process that says who it is in its EHLO, so the SMTP peer can tell them apart. */
const startWorker = (name: string) => {
  const worker = startServerProcess(
    {
      ...verifyEnv(),
      DATABASE_URL: t.databaseUrl,
      SECRET_KEY: TEST_SECRET_KEY,
      VERIFY_HELO_NAME: name,
      TEST_INBOX: 'false',
      SPAM_TEST_MAILBOX: 'false',
    },
    ['--role', 'worker'],
  );
  workers.push(worker);
  return worker;
};

const signedIn = async () => {
  const user = await seedUser(t.platform);
  const agent = createAgent(t.app);
  await agent.signIn(user.email, user.password);
  return agent;
};

/** Stores a paste and confirms it: the job is queued for whichever worker takes it. */
const queueJob = async (agent: TAgent, emails: string[]) => {
  const stored = (await agent.post('/api/tools/verify-emails/text/store', { emails: emails.join('\n') })).json().data;
  const started = await agent.post('/api/tools/verify-emails/last-check', {
    listId: stored.listId,
    creditsToBeUsed: stored.creditToBeUsed,
  });
  expect(started.statusCode, started.body).toBe(200);
  return stored.listId as number;
};

const statusOf = async (jobId: number) =>
  (
    await t.platform.db
      .selectFrom('verification_jobs')
      .select('status')
      .where('id', '=', jobId)
      .executeTakeFirstOrThrow()
  ).status;

describe('connections per mail server across worker processes (R36)', () => {
  it('stay within the limit while two workers verify side by side, and a killed worker frees its share at once', async () => {
    const [first, second] = [startWorker('worker-one.test'), startWorker('worker-two.test')];
    await Promise.all([first!, second!].map((worker) => worker.waitForOutput('worker started', 60_000)));

    // Four jobs on one server (each worker runs two at once): both workers have work together.
    const agents = [await signedIn(), await signedIn()];
    const addresses = (prefix: string) => Array.from({ length: 52 }, (_, index) => `ok${prefix}${index}@busy.test`);
    peers.connections.reset();
    const jobs = [
      await queueJob(agents[0]!, addresses('a')),
      await queueJob(agents[0]!, addresses('b')),
      await queueJob(agents[1]!, addresses('c')),
      await queueJob(agents[1]!, addresses('d')),
    ];
    let mostRunning = 0;
    await waitFor(
      async () => {
        const statuses = await Promise.all(jobs.map(statusOf));
        mostRunning = Math.max(mostRunning, statuses.filter((status) => status === 'running').length);
        return statuses.every((status) => status === 'finished');
      },
      90_000,
      'four jobs to finish',
      100,
    );
    // More jobs ran at once than one worker runs (two): both workers were at it together…
    expect(mostRunning).toBeGreaterThan(2);
    expect(peers.connections.byHelo.get('worker-one.test')).toBeGreaterThan(0);
    expect(peers.connections.byHelo.get('worker-two.test')).toBeGreaterThan(0);
    // …and the server saw two connections at most, where each job alone asks on two: eight without the shared slots.
    expect(peers.connections.maxByServer.get('mx.busy.test')).toBe(2);

    // A worker holding both connections (each answer takes 1.5 s) is killed.
    const held = await queueJob(
      agents[0]!,
      Array.from({ length: 50 }, (_, index) => `h${index}@hold.test`),
    );
    await waitFor(() => peers.connections.openByServer.get('mx.hold.test') === 2, 60_000, 'both slots held');
    const holder = [...peers.connections.openHelos.values()][0]!;
    const [killed, survivor] = holder === 'worker-one.test' ? [first!, second!] : [second!, first!];
    await killed.stop('SIGKILL');
    // The survivor gets the server at once for a new job: nothing of the killed worker's share is kept.
    const next = await queueJob(agents[1]!, ['n1@hold.test', 'n2@hold.test']);
    await waitFor(async () => (await statusOf(next)) === 'finished', 60_000, 'the next job to finish');
    expect(peers.connections.maxByServer.get('mx.hold.test')).toBeLessThanOrEqual(2);
    expect(await statusOf(held)).toBe('running');
    void survivor;
  }, 240_000);
});
