/**
 * B5: email verification of 10,000 addresses at 400 domains against a local DNS server and
 * SMTP server, 5% of them at slow (answers after the step timeout) or greylisting (450,
 * then accepts) domains: from the confirmation (credits charged, job queued) to the last
 * verdict written, as the job runs in a worker.
 */
import dns2 from 'dns2';
import { pino } from 'pino';
import { SMTPServer } from 'smtp-server';
import { createUser } from '../packages/server/src/modules/auth/auth.service';
import { changeCredits } from '../packages/server/src/modules/credits/credits.service';
import { startVerification, storeText } from '../packages/server/src/modules/verification/verification.service';
import { runVerification } from '../packages/server/src/modules/verification/verification-run';
import { openPlatform } from '../packages/server/src/platform/bootstrap';
import { loadConfig } from '../packages/server/src/platform/config';
import { freePort } from '../packages/server/test/cluster';
import { median, type TFigure } from './figures';
import { benchEnvironment } from './seed';

const DOMAINS = 400;
const PER_DOMAIN = 25;
const SLOW_DOMAINS = 10;
const GREY_DOMAINS = 10;
const STEP_TIMEOUT_MS = 1_000;
const GREYLIST_DELAY_MS = 2_000;
const RUNS = 3;

const { Packet } = dns2;

/** Domain n: `d<n>.bench`; the first SLOW_DOMAINS are slow, the next GREY_DOMAINS greylist. */
const kindOf = (domain: string) => {
  const n = Number(/^d(\d+)\.bench$/.exec(domain)?.[1] ?? -1);
  return n < 0 ? 'none' : n < SLOW_DOMAINS ? 'slow' : n < SLOW_DOMAINS + GREY_DOMAINS ? 'grey' : 'plain';
};

const startPeers = async () => {
  const dnsPort = await freePort();
  const dns = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      const [question] = request.questions;
      const name = question!.name.toLowerCase();
      // Each domain has a mail server name of its own, as real domains mostly do: the limit
      // of connections per mail server (R36) would otherwise make this a measure of one
      // server's two connections. All of them are the one local SMTP server.
      if (question!.type === Packet.TYPE.MX && kindOf(name) !== 'none') {
        response.answers.push(<never>{
          name: question!.name,
          type: Packet.TYPE.MX,
          class: Packet.CLASS.IN,
          ttl: 60,
          priority: 10,
          exchange: `mx.${name}`,
        });
      } else if (question!.type === Packet.TYPE.A && name.startsWith('mx.') && kindOf(name.slice(3)) !== 'none') {
        response.answers.push(<never>{
          name: question!.name,
          type: Packet.TYPE.A,
          class: Packet.CLASS.IN,
          ttl: 60,
          address: '127.0.0.1',
        });
      } else {
        response.header.rcode = 3;
      }
      send(response);
    },
  });
  await dns.listen({ udp: { port: dnsPort, address: '127.0.0.1' } });
  const greySeen = new Set<string>();
  const smtpPort = await freePort();
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    maxClients: 10_000,
    onRcptTo: (address, _session, callback) => {
      const [local, domain] = address.address.toLowerCase().split('@') as [string, string];
      const refuse = (code: number, text: string) => callback(Object.assign(new Error(text), { responseCode: code }));
      const answer = () => (local.startsWith('ok') ? callback() : refuse(550, '5.1.1 No such user'));
      const kind = kindOf(domain);
      if (kind === 'slow') return setTimeout(answer, STEP_TIMEOUT_MS * 3);
      if (kind === 'grey' && !greySeen.has(address.address)) {
        greySeen.add(address.address);
        return refuse(450, '4.7.1 Greylisted, try again later');
      }
      answer();
    },
  });
  smtp.on('error', () => {});
  await new Promise<void>((resolve) => smtp.listen(smtpPort, '127.0.0.1', resolve));
  return {
    dnsPort,
    smtpPort,
    reset: () => greySeen.clear(),
    close: async () => {
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
      await dns.close();
    },
  };
};

/** 10,000 addresses: per domain, 20 that exist (`ok…`) and 5 that do not; a run's own prefix keeps them unchecked. */
const addressesFor = (run: number) =>
  Array.from({ length: DOMAINS }, (_, domain) =>
    Array.from({ length: PER_DOMAIN }, (_, index) => `${index < 20 ? 'ok' : 'no'}${run}x${index}@d${domain}.bench`),
  ).flat();

export const runB5 = async (): Promise<TFigure> => {
  const peers = await startPeers();
  const { env, cluster } = await benchEnvironment('sendwell_bench_verification', {
    LOG_LEVEL: 'silent',
    VERIFY_DNS_SERVERS: `127.0.0.1:${peers.dnsPort}`,
    VERIFY_SMTP_PORT: String(peers.smtpPort),
    VERIFY_STEP_TIMEOUT_MS: String(STEP_TIMEOUT_MS),
    VERIFY_GREYLIST_DELAY_MS: String(GREYLIST_DELAY_MS),
    // The local servers are on loopback, which the probe reaches only when told to (R35).
    VERIFY_ALLOW_LOOPBACK: 'true',
  });
  const opened = await openPlatform(loadConfig(env, []), pino({ level: 'silent' }));
  const { platform } = opened;
  try {
    const user = await createUser(platform, { email: 'bench@example.com', name: 'Bench', password: 'secret123' });
    await platform.db
      .transaction()
      .execute((trx) => changeCredits(trx, { userId: user.id, type: 'sale', quantity: RUNS * DOMAINS * PER_DOMAIN }));
    const runs: { seconds: number; perSecond: number; valid: number; invalid: number; unknown: number }[] = [];
    for (let run = 0; run < RUNS; run++) {
      peers.reset();
      const addresses = addressesFor(run);
      const { data } = await storeText(platform, user.id, addresses.join('\n'));
      const started = performance.now();
      await startVerification(platform, user.id, { listId: data.listId, creditsToBeUsed: data.creditToBeUsed });
      await runVerification(platform, data.listId);
      const seconds = (performance.now() - started) / 1000;
      const job = await platform.db
        .selectFrom('verification_jobs')
        .select(['status', 'checked', 'valid', 'invalid', 'unknown'])
        .where('id', '=', data.listId)
        .executeTakeFirstOrThrow();
      if (job.status !== 'finished' || job.checked !== addresses.length) {
        throw new Error(`run ${run}: ${job.status} with ${job.checked} of ${addresses.length} checked`);
      }
      // Every slow domain's address is unknown (its timeout), every greylisted one answered on the second try.
      const slowAddresses = SLOW_DOMAINS * PER_DOMAIN;
      if (job.unknown !== slowAddresses)
        throw new Error(`run ${run}: ${job.unknown} unknown, expected ${slowAddresses}`);
      runs.push({
        seconds,
        perSecond: addresses.length / seconds,
        valid: job.valid,
        invalid: job.invalid,
        unknown: job.unknown,
      });
      console.log(
        `  run ${run + 1}: ${addresses.length} in ${seconds.toFixed(1)} s (${Math.round(addresses.length / seconds)}/s)`,
      );
    }
    const perSecond = median(runs.map((run) => run.perSecond));
    return {
      id: 'B5',
      title: 'verification of 10,000 addresses at 400 domains, 5% at slow or greylisting servers (local DNS and SMTP)',
      anchor: 'DeBounce ~55/s; Reacher ~60/min per IP throttle',
      goal: '≥ 500 addresses/s, no address stuck past its timeout',
      measured: `${Math.round(perSecond)} addresses/s (median of ${RUNS}; ${median(runs.map((run) => run.seconds)).toFixed(1)} s a job; step timeout ${STEP_TIMEOUT_MS} ms, greylist pause ${GREYLIST_DELAY_MS} ms; slow servers' addresses unknown, greylisted ones valid on the second try)`,
      isGoalMet: perSecond >= 500,
      runs,
    };
  } finally {
    await opened.close();
    await peers.close();
    await cluster.stop();
  }
};
