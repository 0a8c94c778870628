import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSecret } from '../src/modules/accounts/secrets';
import { openPlatform, type TOpenPlatform } from '../src/platform/bootstrap';
import { loadConfig } from '../src/platform/config';
import { createLogger } from '../src/platform/logging';
import { createTestDatabase } from './app';
import { freePort } from './cluster';
import { nodeArgsFor, serverEntry } from './processes';
import { seedSinkList, seedSinkSend } from './sending';
import { PROCESS_PATIENCE_MS } from './wait';

/**
 * Issue 48 §5: `npm run admin -- backup FILE` and `restore FILE`. A backup of an install
 * whose master secret is `DATA_DIR/secret.key`, restored into a new data directory (a new
 * embedded PostgreSQL), has the same lists, members, sends and secrets.
 */
const SERVER_ROOT = path.resolve(import.meta.dirname, '..');
const temporary = (name: string) => fs.mkdtempSync(path.join(os.tmpdir(), `sendwell-${name}-`));
const opened: TOpenPlatform[] = [];
const directories: string[] = [];

afterAll(async () => {
  for (const platform of opened.reverse()) await platform.close();
  for (const directory of directories) fs.rmSync(directory, { recursive: true, force: true });
});

const admin = (env: Record<string, string>, ...args: string[]) =>
  spawnSync(process.execPath, [...nodeArgsFor(serverEntry('admin')), ...args], {
    cwd: SERVER_ROOT,
    env: { PATH: process.env.PATH, LOG_LEVEL: 'warn', ...env },
    encoding: 'utf8',
  });

const open = async (env: Record<string, string>) => {
  const platform = await openPlatform(
    loadConfig({ LOG_LEVEL: 'silent', TEST_INBOX: 'false', ...env }, []),
    createLogger('silent'),
  );
  opened.push(platform);
  return platform;
};

/** What the comparison reads: the same on both sides, ids included. */
const contentsOf = async ({ platform }: TOpenPlatform) => ({
  lists: await platform.db
    .selectFrom('mailing_lists')
    .select(['id', 'name', 'address', 'members_count', 'subscribed_count'])
    .orderBy('id')
    .execute(),
  members: await platform.db
    .selectFrom('list_members')
    .select(['list_id', 'email', 'subscribed'])
    .orderBy('id')
    .execute(),
  sends: await platform.db
    .selectFrom('sends')
    .select(['id', 'subject', 'status', 'list_ids', 'html'])
    .orderBy('id')
    .execute(),
  users: await platform.db.selectFrom('users').select(['id', 'email', 'password_hash']).orderBy('id').execute(),
});

describe('backup and restore (issue 48 §5)', { timeout: PROCESS_PATIENCE_MS }, () => {
  it('restores a backup into a new data directory with the same lists, sends and secrets', async () => {
    const sourceDir = temporary('source');
    const targetDir = temporary('target');
    const backupDir = temporary('backups');
    directories.push(sourceDir, targetDir, backupDir);
    fs.writeFileSync(path.join(sourceDir, 'secret.key'), 'the-master-secret-of-this-install-0123456789');
    const databaseUrl = await createTestDatabase();
    const source = await open({ DATABASE_URL: databaseUrl, DATA_DIR: sourceDir });
    const { accountId } = await seedSinkList(source.platform, {
      sinkPort: 2525,
      members: ['ann@example.com', 'bob@example.com', 'cy@example.com'],
    });
    await seedSinkSend(source.platform, { sinkPort: 2525, recipients: 4, subject: 'Autumn news' });
    const before = await contentsOf(source);
    expect(before.lists).toHaveLength(2);
    expect(before.sends).toHaveLength(1);

    const file = path.join(backupDir, 'sendwell.backup');
    const backup = admin({ DATABASE_URL: databaseUrl, DATA_DIR: sourceDir }, 'backup', file);
    expect(backup.status, backup.stderr).toBe(0);
    expect(backup.stdout).toContain('The master secret (secret.key) is in the backup');
    expect((fs.statSync(file).mode & 0o777).toString(8)).toBe('600');

    const port = String(await freePort());
    const restore = admin({ DATA_DIR: targetDir, EMBEDDED_PG_PORT: port }, 'restore', file);
    expect(restore.status, `${restore.stdout}\n${restore.stderr}`).toBe(0);
    expect(restore.stdout).toMatch(/Restored \d+ tables/);
    expect(fs.readFileSync(path.join(targetDir, 'secret.key'), 'utf8')).toBe(
      'the-master-secret-of-this-install-0123456789',
    );

    const target = await open({ DATA_DIR: targetDir, EMBEDDED_PG_PORT: port });
    expect(await contentsOf(target)).toEqual(before);
    // The secrets: a password stored encrypted in the old install opens in the new one.
    const account = await target.platform.db
      .selectFrom('sending_accounts')
      .select('password_encrypted')
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    expect(openSecret(target.platform, accountId, 'password', account.password_encrypted)).toBe('any');
    // Ids go on after the restored ones: a new row takes the next.
    const { id } = await target.platform.db
      .insertInto('mailing_lists')
      .values({
        user_id: before.users[0]!.id,
        account_id: accountId,
        alias: 'new',
        domain: 'acme.test',
        address: 'new@acme.test',
        name: 'New',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    expect(id).toBeGreaterThan(Math.max(...before.lists.map((list) => list.id)));
    await target.close();
    opened.pop();

    // A database that holds users already is not overwritten.
    const again = admin({ DATA_DIR: targetDir, EMBEDDED_PG_PORT: port }, 'restore', file);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('already holds users');
  });

  it('refuses a file that is not a backup, changing nothing', async () => {
    const dir = temporary('broken');
    directories.push(dir);
    const notBackup = path.join(dir, 'notes.txt');
    fs.writeFileSync(notBackup, 'hello');
    const refused = admin(
      { DATA_DIR: path.join(dir, 'data'), EMBEDDED_PG_PORT: String(await freePort()) },
      'restore',
      notBackup,
    );
    expect(refused.status).toBe(1);
    expect(fs.existsSync(path.join(dir, 'data', 'pg'))).toBe(false);
  });
});
