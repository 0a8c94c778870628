import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getBalance } from '../src/modules/credits/credits.service';
import { seedUser, startTestApp, TEST_SECRET_KEY, type TTestApp } from './app';
import { nodeArgsFor, serverEntry } from './processes';
import { PROCESS_PATIENCE_MS } from './wait';

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

// Each command is a process of its own: on a loaded machine one takes several seconds to start.
describe('admin CLI', { timeout: PROCESS_PATIENCE_MS }, () => {
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

  it('sets an SMTP account’s daily cap past the form’s 1,000 and back, audited as the CLI; an account without a cap is refused', async () => {
    const user = await seedUser(t.platform, { planId: 3 });
    const { id: smtpId } = await t.platform.db
      .insertInto('sending_accounts')
      .values({
        user_id: user.id,
        name: 'Relay',
        provider: 'smtp',
        driver: 'smtp',
        host: 'relay.example.com',
        port: 587,
        encryption: 'tls',
        mail_per_day: 1000,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const { id: mailgunId } = await t.platform.db
      .insertInto('sending_accounts')
      .values({ user_id: user.id, name: 'Mailgun', provider: 'mailgun', domain: 'mg.example.com', region: 'us' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const listed = admin('list-accounts', user.email);
    expect(listed.stdout).toContain(`${smtpId}\tRelay\tsmtp\t1000 (the user’s setting)\t0`);
    expect(listed.stdout).toContain(`${mailgunId}\tMailgun\tmailgun\tnot capped`);

    const raised = admin('set-daily-cap', String(smtpId), '50000', '--reason', 'Their own relay');
    expect(raised.status, raised.stderr).toBe(0);
    expect(raised.stdout).toContain(`Account ${smtpId} (Relay) may send 50000 emails a day.`);
    const refused = admin('set-daily-cap', String(mailgunId), '5000', '--reason', 'Raise it');
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('Only SMTP and Gmail accounts have a daily cap');
    expect(admin('set-daily-cap', String(smtpId), 'default', '--reason', 'Relay gone').status).toBe(0);

    const audit = await t.platform.db
      .selectFrom('audit_log')
      .select(['operator_id', 'operator_email', 'action', 'details'])
      .where('target_type', '=', 'account')
      .where('target_id', '=', String(smtpId))
      .orderBy('id')
      .execute();
    expect(audit).toEqual([
      expect.objectContaining({
        operator_id: null,
        action: 'account.daily-cap',
        details: expect.objectContaining({ from: null, to: 50000 }),
      }),
      expect.objectContaining({
        operator_id: null,
        action: 'account.daily-cap',
        details: expect.objectContaining({ from: 50000, to: null }),
      }),
    ]);
    expect(audit[0]!.operator_email).toMatch(/^admin CLI \(/);
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
