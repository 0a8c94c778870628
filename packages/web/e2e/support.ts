import { spawnSync } from 'node:child_process';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';
import pg from 'pg';

export const E2E_USER = { email: 'owner@example.com', password: 'secret123', name: 'Olivia Owner' };

export const baseUrl = () => {
  const url = process.env.E2E_BASE_URL;
  if (!url) throw new Error('E2E_BASE_URL is not set; run through playwright.config.ts');
  return url;
};

export const signIn = async (page: Page, user = E2E_USER) => {
  await page.goto(`${baseUrl()}/login`);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password', { exact: true }).fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('user-name')).toHaveText(user.name);
};

/** Runs `npm run admin -- …` against the e2e database, as an operator would. */
export const admin = (...args: string[]) => {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/admin.ts', ...args], {
    cwd: path.resolve(import.meta.dirname, '../../server'),
    env: { ...process.env, ...JSON.parse(process.env.E2E_ENV ?? '{}') },
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`admin ${args.join(' ')} failed: ${result.stderr}${result.stdout}`);
  return result.stdout;
};

export const withDatabase = async <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => {
  const client = new pg.Client({ connectionString: process.env.E2E_DATABASE_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
};

/** WCAG 2.2 AA: axe's tags for levels A and AA of 2.0, 2.1 and 2.2 (2.2 adds no level-A rule in axe). */
const WCAG_AA_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

/**
 * Runs axe on what the page shows now and fails on serious or critical violations, one
 * line per rule and element, so a failure says what to fix without opening the trace.
 * Call it on every screen a journey visits, once the screen has its content (and with a
 * modal or menu open when that is the screen). `screen` names it in the failure.
 */
export const expectAccessible = async (page: Page, screen: string) => {
  // A transition caught halfway (a modal fading in) would be measured at the wrong colours.
  // Loaders spin forever and are left alone.
  await page.waitForFunction(() =>
    document
      .getAnimations()
      .every((animation) => animation.playState !== 'running' || animation.effect?.getTiming().iterations === Infinity),
  );
  const results = await new AxeBuilder({ page })
    .withTags(WCAG_AA_TAGS)
    // Email previews: sandboxed frames that run no script, so axe cannot run inside and waits
    // on them until the test times out; what they show is the sender's message, not the app.
    // Their titles are checked below instead.
    .exclude('iframe[sandbox]')
    // Experimental in axe, so off unless named: a visible label the accessible name does not contain (2.5.3).
    .options({ rules: { 'label-content-name-mismatch': { enabled: true } } })
    .analyze();
  const problems = results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .flatMap((violation) =>
      violation.nodes.map((node) => {
        const detail = node.failureSummary?.split('\n').slice(1).join(' ').trim();
        return `${violation.id} (${violation.impact}) at ${node.target.join(' ')}: ${detail || violation.help}`;
      }),
    );
  for (const frame of await page.locator('iframe[sandbox]').all()) {
    if (!(await frame.getAttribute('title'))?.trim()) problems.push('frame-title: a sandboxed iframe has no title');
  }
  expect(problems, `axe on ${screen} (${page.url()})`).toEqual([]);
};
