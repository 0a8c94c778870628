import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort, runClusterOrStart } from '../../server/test/cluster';
import { startServerProcess, type TServerProcess } from '../../server/test/processes';
import { startSpamEngines } from '../../server/test/spam-engines';
import { startVerifyPeers } from '../../server/test/verify-peers';
import { startMailDrop } from './mail-drop';
import { E2E_USER } from './support';

const SERVER_ROOT = path.resolve(import.meta.dirname, '../../server');
const SERVER_MAIN = path.join(SERVER_ROOT, 'dist/main.js');

/**
 * Starts what a production install runs: the built server (`dist/main.js`, as `npm start`
 * runs it, no tsx) as a `web` process serving the built app and a separate `worker`
 * process, both on one fresh database in the run's PostgreSQL (TEST_PG_ADMIN_URL from
 * `npm test`, or one started here when run alone).
 */
export default async function globalSetup() {
  const webDist = path.resolve(import.meta.dirname, '../dist/index.html');
  for (const built of [webDist, SERVER_MAIN]) {
    if (!fs.existsSync(built)) throw new Error(`Build first (${built} is missing): npm run build`);
  }

  const { adminUrl, stop: stopCluster } = await runClusterOrStart();
  const database = `sendwell_e2e_${Date.now()}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${database}`);
  await admin.end();
  const databaseUrl = adminUrl.replace(/\/[^/]*$/, `/${database}`);

  // Email verification asks a local DNS server and SMTP peer (accept.test, catchall.test, …).
  // The spam test asks rspamd and SpamAssassin (started here unless rspamd already runs).
  const [verifyPeers, spamEngines] = await Promise.all([startVerifyPeers(), startSpamEngines()]);
  // Sendwell's own mail (confirmation and reset links) lands in files the journeys read.
  const mailDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sendwell-e2e-mail-'));
  const mailDrop = await startMailDrop(mailDir);
  const port = await freePort();
  // The worker runs the built-in test inbox; the web process tells users where it listens.
  const testInboxPort = await freePort();
  const env = {
    TEST_INBOX_PORT: String(testInboxPort),
    DATABASE_URL: databaseUrl,
    SECRET_KEY: 'e2e-secret-key-that-is-long-enough-0123456789',
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    // Every journey signs in from 127.0.0.1: the per-IP sign-in limit (30 per 15 minutes in
    // production, tested in auth.test.ts) would stop the suite halfway.
    LOGIN_LIMIT_PER_IP: '1000',
    VERIFY_DNS_SERVERS: `127.0.0.1:${verifyPeers.dnsPort}`,
    VERIFY_SMTP_PORT: String(verifyPeers.smtpPort),
    VERIFY_STEP_TIMEOUT_MS: '1000',
    VERIFY_GREYLIST_DELAY_MS: '100',
    // The peers are on loopback, which the probe reaches only when allowed (R35).
    VERIFY_ALLOW_LOOPBACK: 'true',
    // The webhooks journey's receiver is on loopback too.
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    ...spamEngines.env,
    SPAM_TEST_SMTP_PORT: '0',
    SPAM_TEST_DNSBL: '',
    SMTP_URL: mailDrop.url,
  };
  const processes: TServerProcess[] = [];
  const web = startServerProcess({ ...env, SENDWELL_ROLE: 'web' }, [], SERVER_MAIN);
  processes.push(web);
  await web.waitForOutput('Sendwell is running at');
  const worker = startServerProcess({ ...env, SENDWELL_ROLE: 'worker', LOG_LEVEL: 'info' }, [], SERVER_MAIN);
  processes.push(worker);
  await worker.waitForOutput('worker started');

  const created = spawnSync(
    process.execPath,
    [
      '--enable-source-maps',
      'dist/admin.js',
      'create-user',
      E2E_USER.email,
      '--name',
      E2E_USER.name,
      '--password',
      E2E_USER.password,
    ],
    { cwd: SERVER_ROOT, env: { ...process.env, ...env }, encoding: 'utf8' },
  );
  if (created.status !== 0) throw new Error(`create-user failed: ${created.stderr}`);

  process.env.E2E_BASE_URL = `http://127.0.0.1:${port}`;
  process.env.E2E_DATABASE_URL = databaseUrl;
  process.env.E2E_ENV = JSON.stringify(env);
  process.env.E2E_MAIL_DIR = mailDir;

  return async () => {
    for (const child of processes) await child.stop();
    await verifyPeers.close();
    await mailDrop.close();
    fs.rmSync(mailDir, { recursive: true, force: true });
    spamEngines.stop();
    await stopCluster();
  };
}
