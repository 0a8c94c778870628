import { sql } from 'kysely';
import { SMTPServer } from 'smtp-server';
import { sealSecret } from '../src/modules/accounts/secrets';
import { createSend } from '../src/modules/delivery/delivery.service';
import type { TPlatform } from '../src/platform/context';
import { createAgent, seedTestInboxAccount, seedUser, type TTestApp } from './app';
import { freePort } from './cluster';

export type TCountingSink = {
  port: number;
  /** The Message-IDs each recipient got, in order of arrival. */
  received: Map<string, string[]>;
  /** How many messages arrived, all recipients together. */
  count: () => number;
  /** Recipients who got more than one message. */
  twice: () => string[];
  /** Messages received whole and not answered yet: in flight at this moment. */
  inFlight: () => number;
  close: () => Promise<void>;
};

/**
 * The receiving server of the engine's process tests (a worker killed, stopped, cut off
 * from its database): any login is accepted, each message is committed (counted) before
 * the answer, as a real server does, and `answerDelayMs` keeps messages in flight at any
 * moment, so a stop or a cut always finds some in hand.
 */
export const startCountingSink = async ({ answerDelayMs = 0 }: { answerDelayMs?: number } = {}) => {
  const received = new Map<string, string[]>();
  let count = 0;
  let inFlight = 0;
  const sink = new SMTPServer({
    logger: false,
    onAuth: (auth, _session, callback) => callback(null, { user: auth.username }),
    onData: (stream, session, callback) => {
      let head = '';
      stream.on('data', (chunk: Buffer) => {
        if (head.length < 4096) head += chunk.toString();
      });
      stream.on('end', () => {
        const to = session.envelope.rcptTo[0]!.address;
        const messageId = head.match(/^Message-ID:\s*(\S+)/im)?.[1] ?? '';
        received.set(to, [...(received.get(to) ?? []), messageId]);
        count += 1;
        if (answerDelayMs === 0) return callback();
        inFlight += 1;
        setTimeout(() => {
          inFlight -= 1;
          callback();
        }, answerDelayMs);
      });
    },
  });
  // Connections of killed or cut-off workers end in resets: expected here.
  sink.on('error', () => {});
  const port = await freePort();
  await new Promise<void>((resolve) => sink.listen(port, '127.0.0.1', resolve));
  return {
    port,
    received,
    count: () => count,
    twice: () => [...received].filter(([, ids]) => ids.length > 1).map(([to]) => to),
    inFlight: () => inFlight,
    close: () => new Promise<void>((resolve) => sink.close(() => resolve())),
  } satisfies TCountingSink;
};

/** A list 'All' (all@acme.test) of `userId` on `accountId`, empty: its id. */
export const seedListRow = async (platform: TPlatform, userId: number, accountId: number) =>
  (
    await platform.db
      .insertInto('mailing_lists')
      .values({
        user_id: userId,
        account_id: accountId,
        alias: 'all',
        domain: 'acme.test',
        address: 'all@acme.test',
        name: 'All',
      })
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id;

/**
 * A signed-in user on the Pro plan with the test inbox as its account and a list of one
 * member, reader@example.com (`verified` as given).
 */
export const seedTestInboxSender = async (app: TTestApp, { verified = false } = {}) => {
  const user = await seedUser(app.platform, { planId: 3 });
  const agent = createAgent(app.app);
  await agent.signIn(user.email, user.password);
  const accountId = await seedTestInboxAccount(app.platform, user.id);
  const listId = await seedListRow(app.platform, user.id, accountId);
  await app.platform.db
    .insertInto('list_members')
    .values({ user_id: user.id, list_id: listId, account_id: accountId, email: 'reader@example.com', verified })
    .execute();
  return { user, agent, accountId, listId };
};

/**
 * A user on the Pro plan with an SMTP account on the sink (no daily cap: these tests are
 * about processes, `dispatch.test.ts` has the cap; `account` adds columns, such as the
 * breaker's lines) and one list of `members`: these addresses, or that many generated
 * r1@example.com….
 */
export const seedSinkList = async (
  platform: TPlatform,
  {
    sinkPort,
    members,
    account = {},
  }: {
    sinkPort: number;
    members: number | string[];
    account?: { name?: string; breaker_bounce_percent?: number; breaker_complaint_percent?: number };
  },
) => {
  const user = await seedUser(platform, { planId: 3 });
  const { id: accountId } = await platform.db
    .insertInto('sending_accounts')
    .values({
      user_id: user.id,
      name: 'Sink',
      provider: 'smtp',
      driver: 'smtp',
      username: 'mailer',
      host: '127.0.0.1',
      port: sinkPort,
      encryption: 'tls',
      from_address: 'news@acme.test',
      mail_per_day: 1_000_000,
      ...account,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await platform.db
    .updateTable('sending_accounts')
    .set({ password_encrypted: sealSecret(platform, accountId, 'password', 'any') })
    .where('id', '=', accountId)
    .execute();
  const listId = await seedListRow(platform, user.id, accountId);
  if (typeof members === 'number') {
    await sql`
      insert into list_members (user_id, list_id, account_id, email)
      select ${user.id}, ${listId}, ${accountId}, 'r' || n || '@example.com' from generate_series(1, ${members}) n`.execute(
      platform.db,
    );
  } else {
    await platform.db
      .insertInto('list_members')
      .values(members.map((email) => ({ user_id: user.id, list_id: listId, account_id: accountId, email })))
      .execute();
  }
  return { user, accountId, listId };
};

/** A send of '<p>Hello</p>' to a new `seedSinkList` user's list of `recipients` generated members, queued. */
export const seedSinkSend = async (
  platform: TPlatform,
  { sinkPort, recipients, subject = 'Process test' }: { sinkPort: number; recipients: number; subject?: string },
) => {
  const { user, accountId, listId } = await seedSinkList(platform, { sinkPort, members: recipients });
  return createSend(platform, user.id, {
    accountId,
    fromName: 'Acme',
    fromAddress: 'news@acme.test',
    subject,
    html: '<p>Hello</p>',
    listIds: [listId],
  });
};

/** A send's recipients by state, and its row: what the process tests assert on at the end. */
export const sendOutcome = async (platform: TPlatform, sendId: number) => {
  const rows = await platform.db
    .selectFrom('send_recipients')
    .select(['email', 'status', 'error'])
    .where('send_id', '=', sendId)
    .execute();
  const byStatus = new Map<string, typeof rows>();
  for (const row of rows) byStatus.set(row.status, [...(byStatus.get(row.status) ?? []), row]);
  const send = await platform.db.selectFrom('sends').selectAll().where('id', '=', sendId).executeTakeFirstOrThrow();
  return { rows, byStatus, send };
};

export const sendStatus = async (platform: TPlatform, sendId: number) =>
  (await platform.db.selectFrom('sends').select('status').where('id', '=', sendId).executeTakeFirstOrThrow()).status;
