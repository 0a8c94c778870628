/**
 * R40's worst case as a figure: the pre-send check of 2 MB bombs (`POST /api/email/pre-send-check`
 * through app.inject, as the user waits after clicking Send), with `/api/health` asked every
 * 20 ms meanwhile and the event loop's longest stall (`monitorEventLoopDelay`) over the check.
 * Before the CPU pool, `<div>` nested 110,000 deep held the loop (and health) 15–38 s and
 * ended in a 500; now the form refuses it, and a 50,000-row table, the heaviest lawful shape
 * (html-to-text 4.5 s), is worked on a pool thread while health answers.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startDnsZone } from '../packages/server/test/dns-zone';
import { median, type TFigure } from './figures';
import { benchEnvironment, openBenchApp, seedAccount, seedList, signInBench } from './seed';

const RUNS = 3;

const BOMBS = {
  'nested 110,000 deep': `${'<div>'.repeat(110_000)}deep${'</div>'.repeat(110_000)}`.slice(0, 1_900_000),
  'a 50,000-row table': `<table>${'<tr><td>a</td><td>b</td><td>c</td></tr>'.repeat(50_000)}</table>`,
  'a 1.9 MB attribute': `<p title="${'a'.repeat(1_900_000)}">x</p>`,
  '70,000 entity runs': `<p>${'&amp;&#x1F600;&lt;&nbsp;'.repeat(70_000)}</p>`,
};

export const runR40 = async (): Promise<TFigure> => {
  const zone = await startDnsZone({
    'bench.test': { txt: ['v=spf1 ip4:127.0.0.1 -all'] },
    'smtp.bench.test': { a: ['127.0.0.1'] },
    '_dmarc.bench.test': { txt: ['v=DMARC1; p=reject'] },
  });
  const { env, cluster } = await benchEnvironment('sendwell_bench_r40', {
    LOG_LEVEL: 'silent',
    SPAM_TEST_DNS_SERVERS: zone.server,
  });
  const { platform, app, close } = await openBenchApp(env);
  try {
    const { userId, accountId } = await seedAccount(platform, {
      values: {
        name: 'SMTP',
        provider: 'smtp',
        driver: 'smtp',
        username: 'b',
        host: 'smtp.bench.test',
        port: 587,
        encryption: 'tls',
        from_address: 'news@bench.test',
      },
      secret: { column: 'password', value: 'x' },
    });
    const listId = await seedList(platform, { userId, accountId }, { run: 1, domain: 'bench.test', size: 100 });
    const { cookie, token } = await signInBench(app);

    /** One check of `html`: its time, its status, health's answers meanwhile, the loop's longest stall. */
    const check = async (html: string) => {
      const loop = monitorEventLoopDelay({ resolution: 10 });
      loop.enable();
      const health: number[] = [];
      let isDone = false;
      const asking = (async () => {
        while (!isDone) {
          const started = performance.now();
          await app.inject({ method: 'GET', url: '/api/health' });
          health.push(performance.now() - started);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      })();
      const started = performance.now();
      const response = await app.inject({
        method: 'POST',
        url: '/api/email/pre-send-check',
        headers: { cookie, 'x-csrf-token': token },
        payload: { account: accountId, senderName: 'Bench', to: [listId], subject: 'Bomb', message: html },
      });
      const ms = performance.now() - started;
      isDone = true;
      await asking;
      loop.disable();
      return { ms, status: response.statusCode, health, stallMs: loop.max / 1e6 };
    };

    // A warm-up: the pool's first thread starts with the first task.
    await check('<p>warm</p>');
    const results: Record<
      string,
      { ms: number; status: number; healthMax: number; healths: number; stallMs: number }[]
    > = {};
    for (const [name, html] of Object.entries(BOMBS)) {
      results[name] = [];
      for (let run = 0; run < RUNS; run++) {
        // Each run its own HTML (a comment apart): the text part is made anew, not found in the cache.
        const one = await check(`${html}<!-- run ${run} -->`);
        results[name].push({
          ms: one.ms,
          status: one.status,
          healthMax: Math.max(...one.health),
          healths: one.health.length,
          stallMs: one.stallMs,
        });
      }
    }
    const summary = Object.entries(results).map(([name, runs]) => {
      const of = (key: 'ms' | 'healthMax' | 'stallMs') => median(runs.map((run) => run[key]));
      return {
        name,
        status: runs[0]!.status,
        ms: of('ms'),
        healthMax: of('healthMax'),
        healths: median(runs.map((run) => run.healths)),
        stallMs: of('stallMs'),
      };
    });
    const worstStall = Math.max(...summary.map((entry) => entry.stallMs));
    return {
      id: 'R40',
      title:
        'Pathological HTML at the pre-send check (2 MB bombs, POST /api/email/pre-send-check via the route): time to the answer, /api/health asked every 20 ms meanwhile, the event loop’s longest stall',
      anchor:
        'before the CPU pool: <div> nested 110,000 deep held the server 15–38 s and answered 500; health waited as long',
      goal: 'nested HTML refused at once; lawful bombs checked while health keeps answering; no stall of the event loop over ~50 ms a step',
      measured: `${summary
        .map(
          (entry) =>
            `${entry.name}: ${entry.status} in ${Math.round(entry.ms).toLocaleString('en-US')} ms, ${entry.healths} health answers meanwhile (slowest ${Math.round(entry.healthMax)} ms), longest loop stall ${Math.round(entry.stallMs)} ms`,
        )
        .join('; ')} (medians of ${RUNS})`,
      isGoalMet: worstStall <= 100 && summary[0]!.status === 422,
      runs: results,
    };
  } finally {
    await close();
    zone.close();
    await cluster.stop();
  }
};
