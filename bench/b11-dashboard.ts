/**
 * B11: the delivery dashboard and the history pages as a signed-in user asks for them
 * (the HTTP routes through app.inject), with 10,000,000 delivery events over 1,000 sends
 * of the last 30 days in the database.
 */
import { sql } from 'kysely';
import type { TFigure } from './figures';
import { benchEnvironment, openBenchApp, seedAccount, signInBench } from './seed';

const EVENTS = Number(process.env.BENCH_DASHBOARD_EVENTS ?? 10_000_000);
const SENDS = 1_000;
const SLICE = 1_000_000;

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

export const runB11 = async (): Promise<TFigure> => {
  const { env, cluster } = await benchEnvironment('sendwell_bench_dashboard', { LOG_LEVEL: 'silent' });
  const { platform, app, close } = await openBenchApp(env);
  try {
    const { userId, accountId } = await seedAccount(platform, {
      values: { name: 'SMTP', provider: 'smtp', driver: 'smtp', username: 'b@bench.test', host: '127.0.0.1', port: 25 },
      secret: { column: 'password', value: 'x' },
    });
    await sql`insert into sends (user_id, account_id, status, from_name, from_address, subject, html, list_ids, list_names,
                                 recipients_count, sent_count, created_at, finished_at)
      select ${userId}::bigint, ${accountId}::bigint, 'finished', 'Bench', 'b@bench.test', 'Send ' || n, '<p>x</p>', '{}', 'Bench list',
             ${EVENTS / SENDS}::int, ${EVENTS / SENDS}::int, now() - (n % 30) * interval '1 day', now() - (n % 30) * interval '1 day'
        from generate_series(1, ${SENDS}::int) n`.execute(platform.db);
    const sends = (
      await sql<{ id: number }>`select id from sends where user_id = ${userId} order by id`.execute(platform.db)
    ).rows;
    const firstSend = Number(sends[0]!.id);
    const seedStarted = performance.now();
    // In slices of a million, each statement's trigger moving the daily counters once.
    for (let offset = 0; offset < EVENTS; offset += SLICE) {
      await sql`insert into delivery_events (user_id, account_id, send_id, email, type, source, occurred_at)
        select ${userId}::bigint, ${accountId}::bigint, ${firstSend}::bigint + (n % ${SENDS}::int), 'r' || n || '@example.com',
               (array['accepted','accepted','accepted','delivered','opened','clicked','failed','deferred','complained','unsubscribed'])[1 + n % 10],
               'smtp', now() - ((n % ${SENDS}::int) % 30) * interval '1 day' - (n % 86400) * interval '1 second'
          from generate_series(${offset + 1}::int, ${Math.min(EVENTS, offset + SLICE)}::int) n`.execute(platform.db);
    }
    await sql`analyze`.execute(platform.db);
    const seedSeconds = (performance.now() - seedStarted) / 1000;

    const { cookie } = await signInBench(app);
    const timeRoute = async (url: string, times = 100) => {
      const first = await app.inject({ method: 'GET', url, headers: { cookie } });
      if (first.statusCode !== 200) throw new Error(`${url} answered ${first.statusCode}: ${first.body.slice(0, 200)}`);
      const samples: number[] = [];
      for (let index = 0; index < times; index++) {
        const started = performance.now();
        await app.inject({ method: 'GET', url, headers: { cookie } });
        samples.push(performance.now() - started);
      }
      return { p50: percentile(samples, 50), p95: percentile(samples, 95) };
    };
    const middleSend = firstSend + SENDS / 2;
    const routes = {
      dashboard: await timeRoute('/api/dashboard'),
      events: await timeRoute('/api/dashboard/delivery-events?per_page=20'),
      eventsFailed: await timeRoute('/api/dashboard/delivery-events?per_page=20&event_type=failed'),
      history: await timeRoute('/api/history?per_page=20'),
      counts: await timeRoute(`/api/history/get-counts/${middleSend}`),
      details: await timeRoute(`/api/history/details/${accountId}/${middleSend}?per_page=20`, 50),
    };
    const worst = Math.max(...Object.values(routes).map((route) => route.p95));
    const fmt = (name: string, figure: { p50: number; p95: number }) =>
      `${name} p95 ${figure.p95.toFixed(1)} ms (p50 ${figure.p50.toFixed(1)})`;
    return {
      id: 'B11',
      title: `Delivery dashboard and history pages via the HTTP routes at ${EVENTS.toLocaleString('en-US')} delivery events over ${SENDS.toLocaleString('en-US')} sends`,
      anchor: 'Mautic reports slow down at millions of stats rows',
      goal: 'p95 < 100 ms',
      measured: [
        fmt('dashboard (30 days, 7 days, totals)', routes.dashboard),
        fmt('delivery events page 1', routes.events),
        fmt('failed events page 1', routes.eventsFailed),
        fmt('history page 1', routes.history),
        fmt('a send’s counts', routes.counts),
        fmt(`a send’s events page 1 (${(EVENTS / SENDS).toLocaleString('en-US')} events, counted)`, routes.details),
      ]
        .join('; ')
        .concat(`; seeding took ${seedSeconds.toFixed(0)} s`),
      isGoalMet: worst < 100,
      runs: routes,
    };
  } finally {
    await close();
    await cluster.stop();
  }
};
