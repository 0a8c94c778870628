import http from 'node:http';
import net from 'node:net';
import type { TSpamReport, TSpamTestResult } from '@sendwell/contracts';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAgent, seedTestInboxAccount, seedUser, startTestApp, type TTestApp } from '../../../test/app';
import { startDnsZone } from '../../../test/dns-zone';
import { CORPUS, CORPUS_PAIRS, corpusKeys, corpusZone, type TCorpusMessage } from '../../../test/spam-corpus';
import { startSpamEngines } from '../../../test/spam-engines';
import { changeCredits } from '../credits/credits.service';
import { startListener } from '../inbound/receiver';
import { analyseContent, analyseMessage } from './analysis';
import type { TRspamdAnswer } from './engines';
import { spamTestListener } from './mailbox';
import { analysisSettings } from './spam-test.service';

/**
 * The score against a corpus of messages of known character (`test/spam-corpus.ts`):
 * each delivered byte for byte into the test mailbox over SMTP and scored with rspamd and
 * SpamAssassin running lands in its band, with the finding that names its fault, and
 * every pair "A above B" holds; with the engines off (and for the header and content
 * checks alone, as the pre-send check runs them) each lands in its band without engines.
 */

const keys = corpusKeys();
let t: TTestApp;
let zone: Awaited<ReturnType<typeof startDnsZone>>;
let engines: Awaited<ReturnType<typeof startSpamEngines>>;
let mailbox: Awaited<ReturnType<typeof startListener>>;

beforeAll(async () => {
  zone = await startDnsZone(corpusZone(keys));
  engines = await startSpamEngines();
  t = await startTestApp({
    ...engines.env,
    SPAM_TEST_DNS_SERVERS: zone.server,
    // On a loaded machine an engine can take seconds over a message: slow, never absent here.
    SPAM_ENGINE_TIMEOUT_SECONDS: '120',
    SPAM_TEST_DOMAIN: 'spamtest.sendwell.test',
    PUBLIC_URL: 'https://sendwell.test',
  });
  mailbox = await startListener(t.platform, spamTestListener, { port: 0, host: '127.0.0.1' });
}, 120_000);

afterAll(async () => {
  await mailbox?.close();
  await t?.close();
  engines?.stop();
  await zone?.close();
});

type TAgent = ReturnType<typeof createAgent>;

/** A user who can run `tests` spam tests (the send route allows 20 a user in 10 minutes). */
const seedTester = async (tests: number) => {
  const user = await seedUser(t.platform, { planId: 3 });
  const agent = createAgent(t.app);
  await agent.signIn(user.email, user.password);
  const accountId = await seedTestInboxAccount(t.platform, user.id, 'news@good.test');
  await t.platform.db
    .transaction()
    .execute((trx) => changeCredits(trx, { userId: user.id, type: 'sale', quantity: tests * 100 }));
  return { agent, accountId };
};

const result = async (agent: TAgent, id: number) => {
  const response = await agent.get(`/api/tools/mail-testing/result/${id}`);
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data as TSpamTestResult;
};

const scored = async (agent: TAgent, id: number) => {
  for (;;) {
    const test = await result(agent, id);
    if (test.status === 'scored' || test.status === 'failed') return test;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

/** Delivers a message to the test mailbox over SMTP, as the sender's own server would. */
const deliver = (raw: Buffer, envelope: { from: string; to: string }) =>
  nodemailer
    .createTransport({ host: '127.0.0.1', port: mailbox.port, secure: false, ignoreTLS: true, name: 'mx.good.test' })
    .sendMail({ envelope, raw });

const arrivalOf = (entry: TCorpusMessage, raw: Buffer, to: string) => ({
  raw,
  ip: '127.0.0.1',
  helo: 'mx.good.test',
  mailFrom: `bounces@${entry.envelopeDomain}`,
  rcptTo: to,
});

/** What does not hold of one report against its corpus entry, as readable lines. */
const misfits = (entry: TCorpusMessage, report: TSpamReport, band: string) => {
  const lines: string[] = [];
  const summary = `${entry.id} (${entry.what}): ${report.score} ${report.verdict}; ${report.checks
    .filter((item) => item.penalty > 0)
    .map((item) => `${item.id} −${item.penalty} (${item.detail})`)
    .join(', ')}`;
  if (report.verdict !== band) lines.push(`${summary}: expected ${band}`);
  if (entry.finding) {
    const finding = report.checks.find((item) => item.id === entry.finding!.id);
    if (finding?.status !== entry.finding.status || !(finding.penalty > 0))
      lines.push(`${summary}: expected finding ${entry.finding.id} ${entry.finding.status} with points`);
    else if (!finding.advice) lines.push(`${summary}: finding ${entry.finding.id} gives no advice`);
  }
  // The score is always 10 less the points of its findings (never below 0).
  const points = report.checks.reduce((sum, item) => sum + Math.round(item.penalty * 10), 0);
  if (Math.max(0, 100 - points) !== Math.round(report.score * 10))
    lines.push(`${summary}: the findings' points do not add up to the score`);
  return lines;
};

describe('the score ranks messages the way mailbox providers would', () => {
  it('puts every corpus message delivered to the test mailbox in its band with rspamd and SpamAssassin judging, and keeps every pair in order', async () => {
    // Three testers side by side, each one message at a time (the engines take a few at once).
    const reports = new Map<string, TSpamReport>();
    const changed: string[] = [];
    const lanes = 3;
    await Promise.all(
      Array.from({ length: lanes }, async (_, lane) => {
        const entries = CORPUS.filter((_entry, index) => index % lanes === lane);
        const { agent, accountId } = await seedTester(entries.length);
        for (const entry of entries) {
          const started = await agent.post('/api/tools/mail-testing/send', {
            account: accountId,
            from: 'Good News',
            subject: entry.id,
            mail_body: '<p>The corpus message goes to the mailbox directly.</p>',
          });
          expect(started.statusCode, started.body).toBe(200);
          const { mail, to } = started.json().data as { mail: number; to: string };
          const raw = await entry.build(to, keys);
          await deliver(raw, { from: `bounces@${entry.envelopeDomain}`, to });
          const test = await scored(agent, mail);
          expect(test.status, entry.id).toBe('scored');
          reports.set(entry.id, test.report!);
          // The mailbox kept (and scored) the message byte for byte as delivered.
          const kept = (await agent.get(`/api/tools/mail-testing/history/${mail}/raw`)).rawPayload;
          if (!kept.equals(raw)) {
            const [sent, got] = [raw.toString('latin1').split('\r\n'), kept.toString('latin1').split('\r\n')];
            const at = sent.findIndex((line, index) => line !== got[index]);
            changed.push(`${entry.id}: line ${at} sent ${JSON.stringify(sent[at])}, kept ${JSON.stringify(got[at])}`);
          }
        }
      }),
    );

    expect(changed).toEqual([]);
    const failures: string[] = [];
    for (const entry of CORPUS) {
      const report = reports.get(entry.id)!;
      failures.push(...misfits(entry, report, entry.band));
      // Both engines judged every message, or one was too slow and says so (never a pass).
      for (const engine of report.engines) {
        if (engine.status === 'scored') continue;
        if (engine.status !== 'timeout')
          failures.push(`${entry.id}: ${engine.name} ${engine.status} (${engine.detail})`);
      }
    }
    for (const [higher, lower] of CORPUS_PAIRS) {
      const [above, below] = [reports.get(higher)!.score, reports.get(lower)!.score];
      if (!(above > below)) failures.push(`${higher} (${above}) must score above ${lower} (${below})`);
    }
    expect(failures).toEqual([]);

    // An engine's own verdict puts the message in the low band, and the result says why.
    const gtube = reports.get('gtube')!;
    expect(gtube.score).toBe(0);
    const engineFinding = gtube.checks.find((item) => item.id === 'engines')!;
    expect(engineFinding.status).toBe('fail');
    expect(engineFinding.detail).toMatch(/rspamd would reject it/);
    expect(engineFinding.detail).toMatch(/SpamAssassin marks it as spam/);
    const spam = reports.get('classic-spam')!;
    // Each fault counts once: classic spam's capitals, IP link, images and missing text part are
    // its findings' (SpamAssassin's 7.1 is 4.6 without them); the drug words on top still cost.
    const spamEngines = spam.checks.find((item) => item.id === 'engines')!;
    expect(spamEngines.status).toBe('fail');
    expect(spamEngines.advice).toMatch(/SpamAssassin DRUG_ED_CAPS/);
    expect(spamEngines.advice).not.toMatch(/SUBJ_ALL_CAPS|HTML_IMAGE_ONLY|HTTP_TO_IP|MIME_HTML_ONLY/);
    // The raw message was scored byte for byte as delivered: the From shown is the one written.
    const from = reports.get('from-invalid')!.checks.find((item) => item.id === 'from')!;
    expect(from.detail).toContain('"News" <news letter@good.test>');
  }, 600_000);

  it('puts every message in its band on authentication and its own checks alone, and the header and content checks alone report the same findings with the same points', async () => {
    const settings = { ...analysisSettings(t.platform), rspamdUrl: null, spamd: null };
    const to = 't-aaaaaaaaaaaaaaaaaaaa@spamtest.sendwell.test';
    const failures: string[] = [];
    const withoutEngines = new Map<string, number>();
    for (const entry of CORPUS) {
      const raw = await entry.build(to, keys);
      const receivedAt = new Date();
      const report = await analyseMessage({ ...arrivalOf(entry, raw, to), receivedAt }, settings);
      failures.push(...misfits(entry, report, entry.bandWithoutEngines));
      withoutEngines.set(entry.id, report.score);
      expect(report.engines.map((engine) => engine.status)).toEqual(['off', 'off']);

      // What the pre-send check runs: no DNS, no engines, no mailbox.
      const content = await analyseContent(raw, { now: receivedAt, trackingHosts: settings.trackingHosts });
      const own = report.checks.filter((item) => item.category === 'headers' || item.category === 'content');
      expect(content.checks, entry.id).toEqual(own);
      const points = own.reduce((sum, item) => sum + Math.round(item.penalty * 10), 0);
      expect(content.score, entry.id).toBe(Math.max(0, 100 - points) / 10);
    }
    expect(failures).toEqual([]);
    // Without engines the clean newsletter still tops every message with a fault.
    for (const [higher, lower] of CORPUS_PAIRS.filter(([above]) => above === 'clean-newsletter')) {
      expect(withoutEngines.get(higher)!, `${higher} above ${lower}`).toBeGreaterThan(withoutEngines.get(lower)!);
    }
  });

  it('signs a corpus message whose DKIM signature holds however slowly signing runs (the clock is read once)', async () => {
    // A loaded machine: the signer's thread is put aside between two looks at the clock. Here
    // every look is a second after the one before, so t= would be written twice, differently.
    const now = Date.now.bind(Date);
    let looks = 0;
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => now() + 1_000 * looks++);
    let raw: Buffer;
    const to = 't-aaaaaaaaaaaaaaaaaaaa@spamtest.sendwell.test';
    const entry = CORPUS.find((item) => item.id === 'clean-newsletter')!;
    try {
      raw = await entry.build(to, keys);
    } finally {
      clock.mockRestore();
    }
    const report = await analyseMessage(
      { ...arrivalOf(entry, raw, to), receivedAt: new Date(Date.now() + 60_000) },
      { ...analysisSettings(t.platform), rspamdUrl: null, spamd: null },
    );
    const dkim = report.checks.find((item) => item.id === 'dkim')!;
    expect(dkim.status, dkim.detail).toBe('pass');
  });

  it('names an engine that does not answer in time a timeout, and its silence neither takes points nor gives any', async () => {
    // An rspamd that takes the request and never answers, and a spamd that never writes.
    const silentHttp = http.createServer(() => {});
    const silentSocket = net.createServer(() => {});
    const held: net.Socket[] = [];
    silentHttp.on('connection', (socket) => held.push(socket));
    silentSocket.on('connection', (socket) => held.push(socket));
    await Promise.all([
      new Promise<void>((resolve) => silentHttp.listen(0, '127.0.0.1', resolve)),
      new Promise<void>((resolve) => silentSocket.listen(0, '127.0.0.1', resolve)),
    ]);
    try {
      const entry = CORPUS.find((item) => item.id === 'size-large')!;
      const to = 't-aaaaaaaaaaaaaaaaaaaa@spamtest.sendwell.test';
      const raw = await entry.build(to, keys);
      const arrival = { ...arrivalOf(entry, raw, to), receivedAt: new Date() };
      const base = analysisSettings(t.platform);
      const slow = await analyseMessage(arrival, {
        ...base,
        rspamdUrl: `http://127.0.0.1:${(silentHttp.address() as net.AddressInfo).port}`,
        spamd: { host: '127.0.0.1', port: (silentSocket.address() as net.AddressInfo).port },
        engineTimeoutMs: 300,
      });
      const off = await analyseMessage(arrival, { ...base, rspamdUrl: null, spamd: null });
      expect(slow.engines.map((engine) => [engine.name, engine.status])).toEqual([
        ['rspamd', 'timeout'],
        ['SpamAssassin', 'timeout'],
      ]);
      const finding = slow.checks.find((item) => item.id === 'engines')!;
      expect(finding).toMatchObject({ status: 'warn', penalty: 0 });
      expect(finding.detail).toMatch(/rspamd timed out; SpamAssassin timed out/);
      expect(slow.score).toBe(off.score);
      // The message's size is a finding of its own, engines or not.
      expect(slow.checks.find((item) => item.id === 'size')).toMatchObject({ status: 'fail' });
    } finally {
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => silentHttp.close(resolve));
      await new Promise((resolve) => silentSocket.close(resolve));
    }
  });

  it("counts an authentication fault once: rspamd's SPF, DKIM and DMARC rules are left out of its content judgement", async () => {
    // rspamd's answer for a spoof when it can look the domain up (the machine's rspamd cannot
    // see the test's DNS zone): its own SPF, DKIM and DMARC rules push it to "add header".
    const answer: TRspamdAnswer = {
      score: 7.7,
      required_score: 15,
      action: 'add header',
      symbols: {
        VIOLATED_DIRECT_SPF: { name: 'VIOLATED_DIRECT_SPF', score: 3.5, description: 'Has no Received' },
        DMARC_POLICY_REJECT: { name: 'DMARC_POLICY_REJECT', score: 2, description: 'DMARC reject policy' },
        R_SPF_FAIL: { name: 'R_SPF_FAIL', score: 1, description: 'SPF verification failed' },
        R_DKIM_REJECT: { name: 'R_DKIM_REJECT', score: 1, description: 'DKIM verification failed' },
        FORGED_SENDER: { name: 'FORGED_SENDER', score: 0.3, description: 'Sender is forged' },
        MIME_GOOD: { name: 'MIME_GOOD', score: -0.1, description: 'Known content-type' },
        ARC_NA: { name: 'ARC_NA', score: 0, description: 'ARC signature absent' },
      },
    };
    const replay = http.createServer((request, response) => {
      request.resume();
      request.on('end', () => response.setHeader('content-type', 'application/json').end(JSON.stringify(answer)));
    });
    await new Promise<void>((resolve) => replay.listen(0, '127.0.0.1', resolve));
    try {
      const entry = CORPUS.find((item) => item.id === 'spoof')!;
      const to = 't-aaaaaaaaaaaaaaaaaaaa@spamtest.sendwell.test';
      const raw = await entry.build(to, keys);
      const arrival = { ...arrivalOf(entry, raw, to), receivedAt: new Date() };
      const base = analysisSettings(t.platform);
      const judged = await analyseMessage(arrival, {
        ...base,
        rspamdUrl: `http://127.0.0.1:${(replay.address() as net.AddressInfo).port}`,
        spamd: null,
      });
      const alone = await analyseMessage(arrival, { ...base, rspamdUrl: null, spamd: null });
      const rspamd = judged.engines[0]!;
      expect(rspamd).toMatchObject({ status: 'scored', score: 7.7, contentScore: 0.2, isSpam: false });
      // SPF, DKIM and DMARC are counted by Sendwell's findings; rspamd's content adds 0.1.
      expect(judged.checks.find((item) => item.id === 'engines')!.penalty).toBe(0.1);
      expect(judged.score).toBe(Math.round((alone.score - 0.1) * 10) / 10);
      expect(judged.verdict).toBe('Likely spam');
    } finally {
      await new Promise((resolve) => replay.close(resolve));
    }
  });
});

/**
 * Engines answering as they would where they can look the domains up (the machine's rspamd and
 * spamd cannot see the test's DNS zone): a recorded rspamd answer over HTTP, a spamd REPORT over
 * its own protocol. Each given engine answers every question with it; an engine not given is off.
 */
const withEngineAnswers = async <T>(
  answers: {
    rspamd?: TRspamdAnswer;
    spamd?: { spam: boolean; score: number; threshold: number; rules: [number, string, string][] };
  },
  run: (settings: ReturnType<typeof analysisSettings>) => Promise<T>,
) => {
  const rspamd = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => response.setHeader('content-type', 'application/json').end(JSON.stringify(answers.rspamd)));
  });
  const spamd = net.createServer((socket) => {
    socket.resume();
    socket.on('end', () => {
      const { spam, score, threshold, rules } = answers.spamd!;
      const report = [
        `Content analysis details:   (${score} points, ${threshold} required)`,
        '',
        ' pts rule name              description',
        '---- ---------------------- --------------------------------------------------',
        ...rules.map(
          ([points, name, description]) => `${points.toFixed(1).padStart(4)} ${name.padEnd(22)} ${description}`,
        ),
        '',
      ].join('\r\n');
      socket.end(
        `SPAMD/1.1 0 EX_OK\r\nContent-length: ${Buffer.byteLength(report)}\r\nSpam: ${spam ? 'True' : 'False'} ; ${score} / ${threshold}\r\n\r\n${report}`,
      );
    });
  });
  await Promise.all([
    new Promise<void>((resolve) => rspamd.listen(0, '127.0.0.1', resolve)),
    new Promise<void>((resolve) => spamd.listen(0, '127.0.0.1', resolve)),
  ]);
  try {
    return await run({
      ...analysisSettings(t.platform),
      rspamdUrl: answers.rspamd ? `http://127.0.0.1:${(rspamd.address() as net.AddressInfo).port}` : null,
      spamd: answers.spamd ? { host: '127.0.0.1', port: (spamd.address() as net.AddressInfo).port } : null,
    });
  } finally {
    await new Promise((resolve) => rspamd.close(resolve));
    await new Promise((resolve) => spamd.close(resolve));
  }
};

/** A corpus message's analysis with the engines given, and without any. */
const judgedAndAlone = async (id: string, answers: Parameters<typeof withEngineAnswers>[0]) => {
  const entry = CORPUS.find((item) => item.id === id)!;
  const to = 't-aaaaaaaaaaaaaaaaaaaa@spamtest.sendwell.test';
  const arrival = { ...arrivalOf(entry, await entry.build(to, keys), to), receivedAt: new Date() };
  const judged = await withEngineAnswers(answers, (settings) => analyseMessage(arrival, settings));
  const alone = await analyseMessage(arrival, { ...analysisSettings(t.platform), rspamdUrl: null, spamd: null });
  return { judged, alone, engines: judged.checks.find((item) => item.id === 'engines')! };
};

describe('each fault counts once: the finding that names it, at its points, and nothing else', () => {
  it('an engine over its line only on its SPF, DKIM and DMARC rules raises no content finding: the authentication items say it', async () => {
    const { judged, alone, engines } = await judgedAndAlone('spoof', {
      // rspamd with its DMARC module's actions on: the policy's reject forced before scoring.
      rspamd: {
        is_skipped: true,
        score: 15,
        required_score: 15,
        action: 'reject',
        symbols: {
          DMARC_POLICY_REJECT: { name: 'DMARC_POLICY_REJECT', score: 2, description: 'DMARC reject policy' },
          R_SPF_FAIL: { name: 'R_SPF_FAIL', score: 1, description: 'SPF verification failed' },
          R_DKIM_REJECT: { name: 'R_DKIM_REJECT', score: 1, description: 'DKIM verification failed' },
          MIME_GOOD: { name: 'MIME_GOOD', score: -0.1, description: 'Known content-type' },
        },
      },
      // SpamAssassin with the KAM rule set: its DMARC rule pushes it past 5.
      spamd: {
        spam: true,
        score: 5.2,
        threshold: 5,
        rules: [
          [
            3,
            'KAM_DMARC_REJECT',
            'DKIM has Failed or SPF has failed on the message and the domain has a DMARC reject policy',
          ],
          [1, 'SPF_FAIL', 'SPF: sender does not match SPF record (fail)'],
          [1, 'SPF_HELO_FAIL', 'SPF: HELO does not match SPF record (fail)'],
          [0.1, 'DKIM_INVALID', 'DKIM or DK signature exists, but is not valid'],
          [0.1, 'DKIM_SIGNED', 'Message has a DKIM or DK signature, not necessarily valid'],
        ],
      },
    });
    expect(judged.engines.map((engine) => engine.status)).toEqual(['scored', 'scored']);
    expect(engines).toMatchObject({ status: 'pass', penalty: 0 });
    expect(engines.detail).toMatch(/rspamd decided before scoring \(reject\) with DMARC_POLICY_REJECT/);
    expect(judged.score).toBe(alone.score);
    expect(judged.checks.filter((item) => item.status === 'fail').map((item) => item.id)).toEqual(
      alone.checks.filter((item) => item.status === 'fail').map((item) => item.id),
    );
  });

  it('a Date in the future is the Date finding\'s fault alone, not also the engines\' "invalid date"', async () => {
    const { judged, alone, engines } = await judgedAndAlone('date-future', {
      // SpamAssassin where a Received header dates the message: past 5 on the Date alone.
      spamd: {
        spam: true,
        score: 5.6,
        threshold: 5,
        rules: [
          [3.2, 'DATE_IN_FUTURE_48_96', 'Date: is 48 to 96 hours after Received: date'],
          [1.9, 'INVALID_DATE', 'Invalid Date: header (not RFC 2822)'],
          [0.5, 'HTML_MESSAGE', 'BODY: HTML included in message'],
        ],
      },
    });
    expect(alone.checks.find((item) => item.id === 'date')).toMatchObject({ status: 'fail', penalty: 2 });
    // The engine takes its share for what is not the Date: 0.5 of 5, a tenth of its 3 points.
    expect(engines).toMatchObject({ status: 'warn', penalty: 0.3 });
    expect(engines.advice).not.toMatch(/date/i);
    expect(judged.score).toBe(Math.round((alone.score - 0.3) * 10) / 10);
    expect(
      judged.checks
        .filter((item) => item.penalty > 0 && /date/i.test(`${item.title} ${item.advice ?? ''}`))
        .map((item) => item.id),
    ).toEqual(['date']);
  });

  it('SPF failing while DKIM and DMARC pass is a middle score, not a low one, whatever an engine forces on it', async () => {
    const { judged, alone, engines } = await judgedAndAlone('spf-fail', {
      // rspamd with force_actions rejecting on an SPF failure, before scoring.
      rspamd: {
        is_skipped: true,
        score: 15,
        required_score: 15,
        action: 'reject',
        symbols: {
          R_SPF_FAIL: { name: 'R_SPF_FAIL', score: 1, description: 'SPF verification failed' },
          VIOLATED_DIRECT_SPF: { name: 'VIOLATED_DIRECT_SPF', score: 3.5, description: 'Has no Received' },
          DMARC_POLICY_ALLOW: { name: 'DMARC_POLICY_ALLOW', score: -0.5, description: 'DMARC permit policy' },
          R_DKIM_ALLOW: { name: 'R_DKIM_ALLOW', score: -0.2, description: 'DKIM verification succeed' },
        },
      },
    });
    expect(
      alone.checks
        .filter((item) => item.id === 'spf' || item.id === 'dkim' || item.id === 'dmarc')
        .map((item) => item.status),
    ).toEqual(['fail', 'pass', 'pass']);
    expect(engines).toMatchObject({ status: 'pass', penalty: 0 });
    expect(judged.score).toBe(alone.score);
    expect(['Good', 'Needs work']).toContain(judged.verdict);
  });
});
