/**
 * `npm run bench [B7 …]`: runs the benchmarks, prints each figure beside its anchor and
 * goal, and rewrites bench/RESULTS.md (the latest table, with machine and date) and
 * bench/results/<id>.json (every run's numbers). Never part of `npm test`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runB1 } from './b1-smtp-send';
import { runB2 } from './b2-mailgun-batch';
import { runB3, runB4, stopListsSetup } from './b3-b4-lists';
import { runB5 } from './b5-verification';
import { runB6 } from './b6-drip-scheduler';
import { runB7 } from './b7-api-list';
import { runB8 } from './b8-webhooks';
import { runB9 } from './b9-worker-rss';
import { runB10 } from './b10-spam-test';
import { runB11 } from './b11-dashboard';
import { runB12 } from './b12-crash-recovery';
import { runB13 } from './b13-rolling-restart';
import { runB14 } from './b14-pre-send';
import { runB15 } from './b15-delayed-jobs';
import { runB16 } from './b16-integrations';
import { runB17 } from './b17-email-editor';
import type { TFigure } from './figures';
import { runR40 } from './r40-html-bombs';

const benchmarks: Record<string, () => Promise<TFigure>> = {
  B1: runB1,
  B2: runB2,
  B3: runB3,
  B4: runB4,
  B5: runB5,
  B6: runB6,
  B7: runB7,
  B8: runB8,
  B9: runB9,
  B10: runB10,
  B11: runB11,
  B12: runB12,
  B13: runB13,
  B14: runB14,
  B15: runB15,
  B16: runB16,
  B17: runB17,
  R40: runR40,
};

const wanted = process.argv.slice(2).map((id) => id.toUpperCase());
// `--table`: no benchmark runs; RESULTS.md is rebuilt from the stored results and NOTES.md.
const ids = wanted.includes('--TABLE') ? [] : wanted.length > 0 ? wanted : Object.keys(benchmarks);
const resultsDir = path.join(import.meta.dirname, 'results');
fs.mkdirSync(resultsDir, { recursive: true });

const machine = `${os.cpus().length} × ${os.cpus()[0]?.model.trim()}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
try {
  for (const id of ids) {
    const benchmark = benchmarks[id];
    if (!benchmark) throw new Error(`No benchmark ${id}. Known: ${Object.keys(benchmarks).join(', ')}`);
    console.log(`\n${id}: running…`);
    const figure = await benchmark();
    const measuredAt = new Date().toISOString();
    fs.writeFileSync(
      path.join(resultsDir, `${id}.json`),
      `${JSON.stringify({ ...figure, machine, measuredAt }, null, 2)}\n`,
    );
    console.log(
      `${id} ${figure.title}\n  measured: ${figure.measured}\n  anchor:   ${figure.anchor}\n  goal:     ${figure.goal} → ${figure.isGoalMet ? 'met' : 'NOT met'}`,
    );
  }
} finally {
  // B3 and B4 share a server and its PostgreSQL, whichever of them runs: stopped here,
  // after both, failed or not (its PostgreSQL runs detached and would outlive us).
  await stopListsSetup();
}

// The table is rebuilt from every stored result, so running one benchmark keeps the others.
const rows = fs
  .readdirSync(resultsDir)
  .filter((file) => file.endsWith('.json'))
  // B1, B2 … B12 in number order.
  .sort((a, b) => Number.parseInt(a.slice(1), 10) - Number.parseInt(b.slice(1), 10))
  .map(
    (file) =>
      JSON.parse(fs.readFileSync(path.join(resultsDir, file), 'utf8')) as TFigure & {
        machine: string;
        measuredAt: string;
      },
  );
const table = [
  '# Benchmark results',
  '',
  'Written by `npm run bench`; medians of several runs on a shared, noisy machine. Compare ratios, not absolutes.',
  '',
  '| # | figure | measured | anchor | goal | met | machine | date |',
  '|---|---|---|---|---|---|---|---|',
  ...rows.map(
    (row) =>
      `| ${row.id} | ${row.title} | ${row.measured} | ${row.anchor} | ${row.goal} | ${row.isGoalMet ? 'yes' : 'no'} | ${row.machine} | ${row.measuredAt.slice(0, 10)} |`,
  ),
  '',
];
// The arguments for goals not met, written by hand (NOTES.md), follow the table.
const notesFile = path.join(import.meta.dirname, 'NOTES.md');
const notes = fs.existsSync(notesFile) ? `\n${fs.readFileSync(notesFile, 'utf8')}` : '';
fs.writeFileSync(path.join(import.meta.dirname, 'RESULTS.md'), `${table.join('\n')}${notes}`);
console.log('\nbench/RESULTS.md updated');
process.exit(0);
