import { spawnSync } from 'node:child_process';
import path from 'node:path';
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
