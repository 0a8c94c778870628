import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSend } from '../src/modules/delivery/delivery.service';
import { seedUser, startTestApp, TEST_SECRET_KEY, type TTestApp } from './app';
import { startServerProcess, type TServerProcess } from './processes';
import { PROCESS_PATIENCE_MS, PROCESS_TEST_TIMEOUT_MS, waitFor } from './wait';

const RECIPIENTS = 600;
let t: TTestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

describe('several workers on one database (issue 12 item 6)', () => {
  it(
    'deliver a test-inbox send whichever worker claims it: each recipient once, none waiting for a retry',
    async () => {
      const user = await seedUser(t.platform, { planId: 2 });
      const { id: accountId } = await t.platform.db
        .insertInto('sending_accounts')
        .values({
          user_id: user.id,
          name: 'Test inbox',
          provider: 'smtp',
          driver: 'test-inbox',
          host: '127.0.0.1',
          port: 2525,
          username: `user-${user.id}`,
          encryption: 'tls',
          from_address: 'news@example.test',
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const { id: listId } = await t.platform.db
        .insertInto('mailing_lists')
        .values({
          user_id: user.id,
          account_id: accountId,
          alias: 'all',
          domain: 'example.test',
          address: 'all@example.test',
          name: 'All',
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await sql`
      insert into list_members (user_id, list_id, account_id, email)
      select ${user.id}, ${listId}, ${accountId}, 'w' || n || '@example.com' from generate_series(1, ${RECIPIENTS}) n`.execute(
        t.platform.db,
      );
      // Three workers; only one of them can host the SMTP sink on a given port, the others
      // (here: none, each on a port of its own that no account points at) deliver all the same.
      const workers: TServerProcess[] = [1, 2, 3].map(() =>
        startServerProcess(
          {
            DATABASE_URL: t.databaseUrl,
            SECRET_KEY: TEST_SECRET_KEY,
            TEST_INBOX: 'true',
            TEST_INBOX_PORT: '0',
            // Room for both sends: the quota would otherwise keep the newest 500.
            TEST_INBOX_MAX_MESSAGES: '5000',
          },
          ['--role', 'worker'],
        ),
      );
      try {
        await Promise.all(workers.map((worker) => worker.waitForOutput('worker started')));
        const sendIds = await Promise.all(
          [1, 2].map((index) =>
            createSend(t.platform, user.id, {
              accountId,
              fromName: 'Workers',
              fromAddress: 'news@example.test',
              subject: `Across workers ${index}`,
              html: '<p>Hello</p>',
              listIds: [listId],
            }),
          ),
        );
        await waitFor(
          async () => {
            const finished = await t.platform.db
              .selectFrom('sends')
              .select('id')
              .where('id', 'in', sendIds)
              .where('status', '=', 'finished')
              .execute();
            return finished.length === sendIds.length;
          },
          PROCESS_PATIENCE_MS,
          'both sends to finish',
        );
        const recipients = await t.platform.db
          .selectFrom('send_recipients')
          .select(['status', 'attempts'])
          .where('send_id', 'in', sendIds)
          .execute();
        expect(recipients).toHaveLength(RECIPIENTS * 2);
        // Nobody waited for a retry because a worker could not reach the inbox.
        expect(recipients.every((recipient) => recipient.status === 'sent' && recipient.attempts === 1)).toBe(true);
        const stored = await sql<{ subject: string; rcpt: string; copies: number }>`
        select subject, rcpt_to[1] as rcpt, count(*)::int as copies from test_inbox_messages
         where user_id = ${user.id} group by 1, 2`.execute(t.platform.db);
        expect(stored.rows).toHaveLength(RECIPIENTS * 2);
        expect(stored.rows.every((row) => row.copies === 1)).toBe(true);
      } finally {
        await Promise.all(workers.map((worker) => worker.stop('SIGKILL')));
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
