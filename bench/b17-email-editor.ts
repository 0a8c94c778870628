/**
 * B17: the email editor as a user meets it (issue 46). From the built web app: the size of
 * the chunks the editor loads (and that the screens which do not edit load none of them); the
 * time from opening Send Email to the editor taking keystrokes (its first text box focused and
 * typed into), median of several fresh page loads in Chromium against the built server; and
 * each starter template composed as the engine composes it, against Gmail's 102 KB clip.
 */
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from '@playwright/test';
import { renderEmail } from '@sendwell/contracts/email/render';
import { STARTER_TEMPLATES } from '@sendwell/contracts/email/starters';
import { pino } from 'pino';
import { composeSample } from '../packages/server/src/modules/delivery/message';
import { openPlatform } from '../packages/server/src/platform/bootstrap';
import { loadConfig } from '../packages/server/src/platform/config';
import { freePort } from '../packages/server/test/cluster';
import { signInOverHttp, startServerProcess, type TServerProcess } from '../packages/server/test/processes';
import { median, type TFigure } from './figures';
import { benchEnvironment, seedAccount } from './seed';

const LOADS = Number(process.env.BENCH_EDITOR_LOADS ?? 7);
const GMAIL_CLIP = 102 * 1024;
const WEB_DIST = path.resolve(import.meta.dirname, '../packages/web/dist');
const CHROMIUM = ['/usr/lib/chromium/chromium-headless-shell', '/usr/bin/chromium'].find((file) => fs.existsSync(file));

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

/** A built chunk's size, minified and gzipped, by the name Vite gave it. */
const chunkSizes = (prefix: string) => {
  const files = fs.readdirSync(path.join(WEB_DIST, 'assets')).filter((file) => file.startsWith(`${prefix}-`));
  return files.map((file) => {
    const bytes = fs.readFileSync(path.join(WEB_DIST, 'assets', file));
    return { file, bytes: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  });
};

export const runB17 = async (): Promise<TFigure> => {
  if (!fs.existsSync(path.join(WEB_DIST, 'index.html'))) throw new Error('Build the web app first: npm run build');
  const editorChunks = ['LazyEmailEditor', 'EmailEditor', 'HtmlCodeEditor'].flatMap(chunkSizes);
  const visual = editorChunks.filter((chunk) => !chunk.file.startsWith('HtmlCodeEditor'));
  const html = editorChunks.filter((chunk) => chunk.file.startsWith('HtmlCodeEditor'));
  const sum = (chunks: typeof editorChunks, key: 'bytes' | 'gzip') =>
    chunks.reduce((total, chunk) => total + chunk[key], 0);

  // The starter templates as the engine composes them (merge fields, tracking, headers).
  const port = await freePort();
  const { env, cluster } = await benchEnvironment('sendwell_bench_email_editor', {
    LOG_LEVEL: 'warn',
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    WEB_DIST_DIR: WEB_DIST,
  });
  const opened = await openPlatform(loadConfig(env, []), pino({ level: 'silent' }));
  const processes: TServerProcess[] = [];
  try {
    const { userId } = await seedAccount(opened.platform, {
      values: {
        name: 'Test inbox',
        provider: 'smtp',
        driver: 'test-inbox',
        host: '127.0.0.1',
        port: 2525,
        from_address: 'news@bench.test',
      },
      secret: { column: 'password', value: 'unused' },
    });
    const templates = [];
    for (const starter of STARTER_TEMPLATES) {
      const raw = await composeSample(opened.platform, {
        userId,
        fromName: 'Bench',
        fromAddress: 'news@bench.test',
        subject: starter.subject,
        html: renderEmail(starter.document),
        replyTo: '',
        trackOpens: true,
        trackClicks: true,
      });
      // Gmail clips on the message's HTML as it arrives: the HTML part, decoded.
      const htmlPart = renderEmail(starter.document).length;
      templates.push({ key: starter.key, message: raw.length, html: htmlPart });
    }
    await opened.close();

    const web = startServerProcess({ ...env, SENDWELL_ROLE: 'all' });
    processes.push(web);
    await web.waitForOutput('Sendwell is running at', 60_000);
    const baseUrl = `http://127.0.0.1:${port}`;
    const { cookie } = await signInOverHttp(baseUrl, 'bench@example.com', 'secret123');

    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    const times: number[] = [];
    const editorRequests: string[] = [];
    let otherScreenEditorRequests = 0;
    try {
      for (let load = 0; load <= LOADS; load++) {
        // A fresh context each time: nothing cached, as a user's first visit after a release.
        const context = await browser.newContext();
        await context.addCookies(
          cookie.split('; ').map((pair) => {
            const [name, ...value] = pair.split('=');
            return { name: name!, value: value.join('='), url: baseUrl };
          }),
        );
        const page = await context.newPage();
        const requested: string[] = [];
        page.on('request', (request) => requested.push(new URL(request.url()).pathname));
        if (load === 0) {
          // A screen that does not edit loads no editor chunk.
          await page.goto(`${baseUrl}/mailing-lists`, { waitUntil: 'networkidle' });
          otherScreenEditorRequests = requested.filter((file) => /EmailEditor|HtmlCodeEditor/.test(file)).length;
          await context.close();
          continue;
        }
        const started = Date.now();
        await page.goto(`${baseUrl}/send-email`);
        const text = page.getByRole('textbox', { name: 'Message', exact: true });
        await text.click();
        await page.keyboard.type('Q');
        await text.filter({ hasText: 'Q' }).waitFor();
        times.push(Date.now() - started);
        if (load === 1) editorRequests.push(...requested.filter((file) => /EmailEditor|HtmlCodeEditor/.test(file)));
        await context.close();
      }
    } finally {
      await browser.close();
    }

    const largest = templates.reduce((max, template) => Math.max(max, template.html), 0);
    const isUnderClip = templates.every((template) => template.html < GMAIL_CLIP);
    const isLazy = otherScreenEditorRequests === 0 && !editorRequests.some((file) => file.includes('HtmlCodeEditor'));
    return {
      id: 'B17',
      title:
        'The email editor: its chunks, the time from opening Send Email to typing into it (built app, Chromium, fresh cache), and each starter template composed, against Gmail’s 102 KB clip',
      measured: `Visual editor chunks ${kb(sum(visual, 'bytes'))} minified, ${kb(sum(visual, 'gzip'))} gzipped (tiptap, the blocks, the settings); the HTML mode's CodeMirror ${kb(sum(html, 'bytes'))} / ${kb(sum(html, 'gzip'))}, fetched only when HTML mode opens (Send Email loaded ${editorRequests.length} editor chunk${editorRequests.length === 1 ? '' : 's'}: ${editorRequests.map((file) => path.basename(file).replace(/-[^-]+\.js$/, '')).join(', ')}; Mailing Lists loaded ${otherScreenEditorRequests}). Opening Send Email to the first keystroke shown: median ${median(times)} ms over ${times.length} fresh loads (min ${Math.min(...times)}, max ${Math.max(...times)}). Starter templates, HTML part / whole composed message: ${templates.map((template) => `${template.key} ${kb(template.html)} / ${kb(template.message)}`).join(', ')}; the largest HTML ${kb(largest)}, ${((largest / GMAIL_CLIP) * 100).toFixed(0)} % of the clip`,
      anchor: 'Mailchimp’s builder loads in seconds; Gmail clips a message’s HTML past 102 KB',
      goal: 'editor chunk loaded only where used; every starter template under Gmail’s 102 KB clip',
      isGoalMet: isLazy && isUnderClip,
      runs: { editorChunks, times, templates, editorRequests, otherScreenEditorRequests },
    };
  } finally {
    for (const process of processes) await process.stop();
    await cluster.stop();
  }
};
