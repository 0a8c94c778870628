/**
 * B1: messages/s of a real send (snapshot, leased claims, one checkpoint per recipient,
 * 4 SMTP sessions) to a local SMTP sink in a process of its own, against the sink's raw
 * acceptance rate with a minimal client (the same 4 sessions sending the engine's own
 * message, HTML with its plain-text part and headers, to every address, no database).
 * Until 2026-11-27 the sink ran in the bench's own process, sharing the engine's one
 * thread: CPU per message there showed the sink's part was larger than the engine's.
 */
import { pino } from 'pino';
import { dispatch, snapshotSend } from '../packages/server/src/modules/delivery/delivery.jobs';
import { createSend } from '../packages/server/src/modules/delivery/delivery.service';
import { buildMessage } from '../packages/server/src/modules/delivery/message';
import { openPlatform } from '../packages/server/src/platform/bootstrap';
import { loadConfig } from '../packages/server/src/platform/config';
import type { TOutgoingMessage } from '../packages/server/src/providers/mail';
import { createSmtpTransport } from '../packages/server/src/providers/smtp';
import { freePort } from '../packages/server/test/cluster';
import { countCpu, describeCpu, medianCpu } from './cpu';
import { median, type TFigure } from './figures';
import { benchEnvironment, seedAccount, seedList } from './seed';
import { startSmtpSinkProcess } from './servers';

const RECIPIENTS = Number(process.env.BENCH_SEND_RECIPIENTS ?? 10_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const CONNECTIONS = 4;

export const runB1 = async (): Promise<TFigure> => {
  const sinkPort = await freePort();
  const sink = await startSmtpSinkProcess(sinkPort);
  const { env, cluster } = await benchEnvironment('sendwell_bench_send', {
    LOG_LEVEL: 'silent',
    ALLOW_LOOPBACK_SMTP: 'true',
  });
  const opened = await openPlatform(loadConfig(env, []), pino({ level: 'silent' }));
  const { platform } = opened;
  try {
    const owner = await seedAccount(platform, {
      values: {
        name: 'Sink',
        provider: 'smtp',
        driver: 'smtp',
        username: 'mailer',
        host: '127.0.0.1',
        port: sinkPort,
        encryption: 'tls',
        from_address: 'news@bench.test',
        // The daily cap (at most 1,000 through the form) is lifted: B1 measures throughput.
        mail_per_day: 1_000_000,
      },
      secret: { column: 'password', value: 'any' },
    });
    const html = `<html><body><h1>Hello {{name::friend}}</h1><p>${'Some news. '.repeat(60)}</p><p><a href="https://example.com/read">Read more</a></p></body></html>`;

    const raw: number[] = [];
    const rawHtmlOnly: number[] = [];
    const ours: number[] = [];
    const rawCpuRuns: Record<string, number>[] = [];
    const ourCpuRuns: Record<string, number>[] = [];
    for (let run = 0; run < RUNS; run++) {
      const listId = await seedList(platform, owner, { run, domain: 'bench.test', size: RECIPIENTS });
      const sendId = await createSend(platform, owner.userId, {
        accountId: owner.accountId,
        fromName: 'Bench',
        fromAddress: 'news@bench.test',
        subject: 'Hello {{name}}',
        html,
        listIds: [listId],
      });
      // The sink's raw rate: the same sessions and message, no database.
      const transport = await createSmtpTransport(
        { host: '127.0.0.1', port: sinkPort, encryption: 'tls', username: 'mailer', password: 'any' },
        { allowLoopback: true, allowSelfSigned: true, connections: CONNECTIONS },
      );
      // The message the engine sends (HTML, its plain-text part, List-Unsubscribe, a
      // Message-ID), built for a recipient of the send: the raw client sends it as it is.
      const send = await platform.db.selectFrom('sends').selectAll().where('id', '=', sendId).executeTakeFirstOrThrow();
      const message = await buildMessage(platform, send, {
        email: 'raw@example.com',
        name: 'Reader',
        fields: {},
        id: 1,
        token: 'f'.repeat(32),
      });
      const batch = Array.from({ length: 200 }, (_, index) => ({ ...message, to: `raw${index}@example.com` }));
      /** The raw client's messages per second for `batch`, sent until RECIPIENTS have gone. */
      const rawRateOf = async (batch: TOutgoingMessage[]) => {
        const rawStarted = performance.now();
        for (let sent = 0; sent < RECIPIENTS; sent += batch.length) await transport.send(batch);
        return RECIPIENTS / ((performance.now() - rawStarted) / 1000);
      };
      // Earlier figures' raw client sent the HTML alone (no text part, no headers): measured
      // too, so they can be compared.
      const htmlOnly = batch.map(({ from, to, subject }) => ({ from, to, subject, html }));
      const rawCpu = countCpu('bench (client)', { sink: sink.pid });
      raw.push(await rawRateOf(batch));
      rawCpuRuns.push(rawCpu.perItem(RECIPIENTS));
      rawHtmlOnly.push(await rawRateOf(htmlOnly));
      transport.close();

      const before = await sink.accepted();
      const cpu = countCpu('engine', { sink: sink.pid });
      const started = performance.now();
      await snapshotSend(platform, sendId);
      await dispatch(platform, sendId, { connections: CONNECTIONS });
      const seconds = (performance.now() - started) / 1000;
      ourCpuRuns.push(cpu.perItem(RECIPIENTS));
      const got = (await sink.accepted()) - before;
      if (got !== RECIPIENTS) throw new Error(`sink got ${got} of ${RECIPIENTS}`);
      ours.push(RECIPIENTS / seconds);
    }
    const rate = median(ours);
    const rawRate = median(raw);
    const rawHtmlOnlyRate = median(rawHtmlOnly);
    return {
      id: 'B1',
      title: `A send to ${RECIPIENTS.toLocaleString('en-US')} recipients through a local SMTP sink in a process of its own (STARTTLS, 4 sessions, a checkpoint per recipient)`,
      anchor: "listmonk's maintainer: ~833/s through one Haraka server; listmonk default ceiling 100/s",
      goal: '≥ 1,000/s and ≥ 85% of the raw sink rate (first goal 60 %)',
      measured: `${Math.round(rate).toLocaleString('en-US')} messages/s (median of ${RUNS}, snapshot included); raw sink rate with the same sessions and message, no database ${Math.round(rawRate).toLocaleString('en-US')}/s; ratio ${(rate / rawRate).toFixed(2)}. Against the earlier raw client, which sent the HTML alone (${Math.round(rawHtmlOnlyRate).toLocaleString('en-US')}/s): ${(rate / rawHtmlOnlyRate).toFixed(2)}. CPU µs per message: the send ${describeCpu(medianCpu(ourCpuRuns))}; the raw client ${describeCpu(medianCpu(rawCpuRuns))}`,
      isGoalMet: rate >= 1000 && rate / rawRate >= 0.85,
      runs: {
        ours,
        raw,
        rawHtmlOnly,
        cpuMicrosPerMessage: medianCpu(ourCpuRuns),
        rawCpuMicrosPerMessage: medianCpu(rawCpuRuns),
      },
    };
  } finally {
    await opened.close();
    await cluster.stop();
    await sink.close();
  }
};
