import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getBalance } from '../src/modules/credits/credits.service';
import { seedUser, startTestApp, TEST_SECRET_KEY, type TTestApp } from './app';
import { nodeArgsFor, serverEntry } from './processes';

let t: TTestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

/** `npm run admin -- …` against the test database, as an operator runs it. */
const admin = (...args: string[]) =>
  spawnSync(process.execPath, [...nodeArgsFor(serverEntry('admin')), ...args], {
    cwd: path.resolve(import.meta.dirname, '..'),
    env: { PATH: process.env.PATH, DATABASE_URL: t.databaseUrl, SECRET_KEY: TEST_SECRET_KEY, LOG_LEVEL: 'warn' },
    encoding: 'utf8',
  });

describe('admin CLI', () => {
  it('grants and removes credits as ledger entries', async () => {
    const user = await seedUser(t.platform);
    expect(admin('grant-credits', user.email, '200', '--reference', 'support ticket 12').stdout).toContain(
      'balance 500',
    );
    expect(admin('remove-credits', user.email, '1000').stdout).toContain('balance 0');
    const entries = await t.platform.db
      .selectFrom('credit_entries')
      .select(['type', 'quantity', 'reference'])
      .where('user_id', '=', user.id)
      .orderBy('id')
      .execute();
    expect(entries).toEqual([
      { type: 'trial', quantity: 300, reference: 'Free' },
      { type: 'one-time-credit', quantity: 200, reference: 'support ticket 12' },
      { type: 'mon-balance-remove', quantity: -500, reference: 'operator' },
    ]);
    expect(await getBalance(t.platform.db, user.id)).toEqual({ totalCredit: 0, usedCredit: 0 });
  });

  it('refuses a quantity that is not a positive whole number, changing nothing', async () => {
    const user = await seedUser(t.platform);
    const fraction = admin('grant-credits', user.email, '2.5');
    expect(fraction.status).toBe(1);
    expect(fraction.stderr).toContain('QUANTITY must be a whole number of at least 1.');
    const negative = admin('grant-credits', user.email, '-5');
    expect(negative.status).toBe(1);
    expect(negative.stderr).toContain("Error: Unknown option '-5'");
    expect((await getBalance(t.platform.db, user.id)).totalCredit).toBe(300);
  });

  it('creates and edits plans and moves a user onto one', async () => {
    const created = admin(
      'create-plan',
      '--name',
      'Agency',
      '--plan-name',
      'agency',
      '--price',
      '199',
      '--scheduling',
      'yes',
    );
    expect(created.stdout).toMatch(/Created plan (\d+) \(Agency\)\./);
    const planId = created.stdout.match(/Created plan (\d+)/)![1]!;
    expect(admin('edit-plan', planId, '--monthly-credits', '100000').stdout).toContain('Updated plan');
    const user = await seedUser(t.platform);
    expect(admin('set-plan', user.email, planId).stdout).toContain('is now on Agency.');
    const row = await t.platform.db
      .selectFrom('users')
      .innerJoin('plans', 'plans.id', 'users.plan_id')
      .select(['plans.name', 'plans.monthly_credits', 'plans.allows_scheduling', 'plans.is_free'])
      .where('users.id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ name: 'Agency', monthly_credits: 100000, allows_scheduling: true, is_free: false });
    expect(admin('list-plans').stdout).toContain('agency');
    expect(admin('set-plan', user.email, '999').stderr).toContain('No plan with id 999.');
  });
});
