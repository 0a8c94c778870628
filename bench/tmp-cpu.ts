import fs from 'node:fs';
import { pino } from 'pino';
import { dispatch } from '../packages/server/src/modules/sending/dispatch';
import { snapshotSend } from '../packages/server/src/modules/sending/sending.jobs';
import { openPlatform } from '../packages/server/src/platform/bootstrap';
import { loadConfig } from '../packages/server/src/platform/config';
import { benchEnvironment, createMailgunSend, seedMailgunAccount, seedMailgunList } from './seed';
import { startMailgunProcess } from './servers';

const ticks = () => {
  const out = new Map<string, number>();
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cpu = Number(f[11]) + Number(f[12]);
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      const key =
        name === 'postgres'
          ? 'postgres'
          : pid === String(process.pid)
            ? 'engine'
            : cmd.includes('mailgun-fake')
              ? 'fake'
              : `other:${name}`;
      out.set(`${key}`, (out.get(key) ?? 0) + cpu);
      out.set(`pid:${pid}`, cpu);
    } catch {}
  }
  return out;
};
const N = 100_000;
const mailgun = await startMailgunProcess();
const { env, cluster } = await benchEnvironment('sendwell_cpu', {
  LOG_LEVEL: 'silent',
  MAILGUN_US_URL: mailgun.urls.us,
  MAILGUN_EU_URL: mailgun.urls.eu,
});
const opened = await openPlatform(loadConfig(env, []), pino({ level: 'silent' }));
const { platform } = opened;
const owner = await seedMailgunAccount(platform);
for (let run = 0; run < 3; run++) {
  const listId = await seedMailgunList(platform, owner, run, N);
  const sendId = await createMailgunSend(platform, owner, listId);
  await snapshotSend(platform, sendId);
  const before = ticks();
  const t0 = performance.now();
  await dispatch(platform, sendId);
  const wall = (performance.now() - t0) / 1000;
  const after = ticks();
  const per = (k: string) => (((after.get(k) ?? 0) - (before.get(k) ?? 0)) * 10_000) / N; // µs per recipient (10 ms ticks)
  const others = [...after.keys()]
    .filter((k) => k.startsWith('other:'))
    .map((k) => `${k}=${per(k).toFixed(0)}`)
    .filter((x) => !x.endsWith('=0'));
  console.log(
    `run ${run}: ${Math.round(N / wall)}/s wall ${wall.toFixed(2)}s; µs CPU per recipient: engine ${per('engine').toFixed(0)}, postgres ${per('postgres').toFixed(0)}, fake ${per('fake').toFixed(0)}; ${others.join(' ')}; budget at 2 cores ${(2e6 / (N / wall)).toFixed(0)} µs`,
  );
}
await opened.close();
await cluster.stop();
await mailgun.close();
