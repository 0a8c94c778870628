import crypto, { createHmac, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { seedUser, startTestApp, type TTestApp } from '../../../test/app';
import { sealSecret } from '../accounts/secrets';
import { RECIPIENT_VARIABLE } from '../delivery/message';
import { cleanupJob } from '../system/system.jobs';
import { applyPendingEvents } from './mailgun-events';
import {
  KEY_LOOKUPS_PER_MINUTE,
  receiveMailgunWebhook,
  SIGNATURE_MAX_AGE_SECONDS,
  ZMailgunWebhook,
} from './mailgun-webhooks';

const WEBHOOK_KEY = 'whsec-0123456789abcdef0123456789abcdef';
let t: TTestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

/** A Mailgun account with a webhook key, a list member and a send with one recipient row. */
const seedSent = async () => {
  const user = await seedUser(t.platform, { planId: 3 });
  const { id: accountId } = await t.platform.db
    .insertInto('sending_accounts')
    .values({ user_id: user.id, name: 'Mailgun', provider: 'mailgun', domain: 'mg.acme.test', region: 'us' })
    .returning('id')
    .executeTakeFirstOrThrow();
  await t.platform.db
    .updateTable('sending_accounts')
    .set({ webhook_key_encrypted: sealSecret(t.platform, accountId, 'webhook_key', WEBHOOK_KEY) })
    .where('id', '=', accountId)
    .execute();
  const { id: listId } = await t.platform.db
    .insertInto('mailing_lists')
    .values({
      user_id: user.id,
      account_id: accountId,
      alias: 'news',
      domain: 'mg.acme.test',
      address: 'news@mg.acme.test',
      name: 'News',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await t.platform.db
    .insertInto('list_members')
    .values({ user_id: user.id, list_id: listId, account_id: accountId, email: 'reader@example.com' })
    .execute();
  const { id: sendId } = await t.platform.db
    .insertInto('sends')
    .values({
      user_id: user.id,
      account_id: accountId,
      status: 'finished',
      from_address: 'news@mg.acme.test',
      subject: 'Hi',
      html: '<p>Hi</p>',
      list_ids: [listId],
      sent_count: 1,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const token = randomBytes(16).toString('hex');
  await t.platform.db
    .insertInto('send_recipients')
    .values({ send_id: sendId, user_id: user.id, email: 'reader@example.com', token, status: 'sent' })
    .execute();
  return { user, accountId, sendId, token };
};

const signed = (
  event: Record<string, unknown>,
  { key = WEBHOOK_KEY, timestamp = Math.floor(Date.now() / 1000), token = randomBytes(25).toString('hex') } = {},
) => ({
  signature: {
    timestamp: String(timestamp),
    token,
    signature: createHmac('sha256', key).update(`${timestamp}${token}`).digest('hex'),
  },
  'event-data': { id: randomBytes(8).toString('hex'), recipient: 'reader@example.com', ...event },
});

const post = (accountId: number, body: unknown) =>
  t.app.inject({ method: 'POST', url: `/api/webhooks/mailgun/${accountId}`, payload: body as object });

/** The send after the stored events were applied, as the apply job does soon after. */
const sendRow = async (sendId: number) => {
  await applyPendingEvents(t.platform);
  return t.platform.db.selectFrom('sends').selectAll().where('id', '=', sendId).executeTakeFirstOrThrow();
};

const secondsAgo = (seconds: number) => Math.floor(Date.now() / 1000) - seconds;

describe('Mailgun webhooks (R9)', () => {
  it('accepts a signed event and refuses tampered, foreign-key, expired and replayed ones with 406', async () => {
    const { accountId, sendId, token } = await seedSent();
    const event = { event: 'delivered', 'user-variables': { [RECIPIENT_VARIABLE]: token } };
    const good = signed(event);
    expect((await post(accountId, good)).statusCode).toBe(200);
    expect((await sendRow(sendId)).delivered_count).toBe(1);

    const tampered = signed({ ...event, id: 'other-1' });
    tampered.signature.signature = tampered.signature.signature.replace(/^./, (first) => (first === 'a' ? 'b' : 'a'));
    const foreignKey = signed({ ...event, id: 'other-2' }, { key: 'not-the-key' });
    const expired = signed({ ...event, id: 'other-3' }, { timestamp: secondsAgo(SIGNATURE_MAX_AGE_SECONDS + 60) });
    // Mailgun signs timestamp and token only: the same signature block on another event is a replay.
    const replayed = { ...good, 'event-data': { ...good['event-data'], id: 'other-4' } };
    const replayedToken = signed({ ...event, id: 'other-5' }, { token: good.signature.token });
    // 406 is the refusal Mailgun does not retry: no retry can make these pass.
    for (const body of [tampered, foreignKey, expired, replayed, replayedToken]) {
      expect((await post(accountId, body)).statusCode).toBe(406);
    }
    expect((await post(999_999, signed(event))).statusCode).toBe(404);
    expect((await sendRow(sendId)).delivered_count).toBe(1);
  });

  it('compares signatures in constant time', async () => {
    const { accountId } = await seedSent();
    // Watched, not changed: the signature check must go through Node's constant-time comparison.
    const compare = vi.spyOn(crypto, 'timingSafeEqual');
    const tampered = signed({ event: 'opened' });
    const given = tampered.signature.signature;
    tampered.signature.signature = `${given.slice(0, -1)}${given.endsWith('a') ? 'b' : 'a'}`;
    expect((await post(accountId, tampered)).statusCode).toBe(406);
    expect(compare).toHaveBeenCalledWith(Buffer.from(tampered.signature.signature), expect.any(Buffer));
    compare.mockRestore();
  });
});

describe('Mailgun webhooks for made-up accounts', () => {
  it('holds back an address that names too many unknown accounts, never posts for known ones', async () => {
    const { accountId, sendId, token } = await seedSent();
    const event = { event: 'delivered', 'user-variables': { [RECIPIENT_VARIABLE]: token } };
    const flooder = '203.0.113.9';
    const postFrom = (remoteAddress: string, id: number, body: unknown) =>
      t.app.inject({ method: 'POST', url: `/api/webhooks/mailgun/${id}`, payload: body as object, remoteAddress });
    // The real account's key is read once and then known.
    expect((await postFrom(flooder, accountId, signed(event))).statusCode).toBe(200);

    // Each made-up id costs a key lookup, KEY_LOOKUPS_PER_MINUTE of them a minute per address.
    const firstMadeUp = 5_000_000;
    for (let done = 1; done < KEY_LOOKUPS_PER_MINUTE; done += 250) {
      const answers = await Promise.all(
        Array.from({ length: Math.min(250, KEY_LOOKUPS_PER_MINUTE - done) }, (_, index) =>
          receiveMailgunWebhook(t.platform, firstMadeUp + done + index, ZMailgunWebhook.parse(signed(event)), flooder),
        ),
      );
      expect(answers.every((answer) => answer.status === 404)).toBe(true);
    }
    const heldBack = await postFrom(flooder, firstMadeUp - 1, signed(event));
    expect(heldBack.statusCode).toBe(429);
    expect(Number(heldBack.headers['retry-after'])).toBeGreaterThan(0);
    // An id already looked up is answered from memory, still 404.
    expect((await postFrom(flooder, firstMadeUp + 1, signed(event))).statusCode).toBe(404);
    // The known account's events from the same address are taken, and another address's
    // lookups are its own.
    expect((await postFrom(flooder, accountId, signed({ ...event, event: 'opened' }))).statusCode).toBe(200);
    expect((await postFrom('198.51.100.7', firstMadeUp - 2, signed(event))).statusCode).toBe(404);
    const send = await sendRow(sendId);
    expect([send.delivered_count, send.opened_count]).toEqual([1, 1]);
  });
});

describe('Mailgun webhooks arriving together (R9, R10)', () => {
  it('refuses a token replayed in the same moment and stores a repeated event once', async () => {
    const { accountId, sendId, token } = await seedSent();
    const variables = { 'user-variables': { [RECIPIENT_VARIABLE]: token } };
    await post(accountId, signed({ event: 'failed', severity: 'temporary', ...variables })); // caches the key
    // Called without the route so that they queue in the same tick: the first is stored
    // alone and the others wait for the next statement together, replayed token and all.
    const first = signed({ id: 'ev-together-1', event: 'delivered', ...variables });
    const replayToken = randomBytes(25).toString('hex');
    const sameToken = Array.from({ length: 8 }, (_, index) =>
      signed({ id: `ev-together-replay-${index}`, event: 'opened', ...variables }, { token: replayToken }),
    );
    const sameEvent = Array.from({ length: 8 }, () =>
      signed({ id: 'ev-together-click', event: 'clicked', ...variables }),
    );
    const answers = await Promise.all(
      [first, ...sameToken, ...sameEvent].map((body) =>
        receiveMailgunWebhook(t.platform, accountId, ZMailgunWebhook.parse(body)),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1 + 1 + sameEvent.length);
    expect(statuses.filter((status) => status === 406)).toHaveLength(sameToken.length - 1);
    const stored = await t.platform.db
      .selectFrom('provider_events')
      .select('id')
      .where('account_id', '=', accountId)
      .where('id', 'like', 'mailgun:ev-together-%')
      .execute();
    expect(stored).toHaveLength(3);
    expect(await sendRow(sendId)).toMatchObject({ delivered_count: 1, opened_count: 1, clicked_count: 1 });
  });
});

/** The transactions that wrote these tokens' rows (each row's xmin), in the tokens' order. */
const tokenTransactions = async (tokens: string[]) => {
  const { rows } = await sql<{ token: string; xmin: string }>`
    select token, xmin::text as xmin from webhook_tokens where token = any(${tokens}::text[])`.execute(t.platform.db);
  const byToken = new Map(rows.map((row) => [row.token, row.xmin]));
  return tokens.map((token) => byToken.get(token));
};

/** The transactions that wrote these events' rows. */
const eventTransactions = async (eventIds: string[]) => {
  const { rows } = await sql<{ id: string; xmin: string }>`
    select id, xmin::text as xmin from provider_events where id = any(${eventIds.map((id) => `mailgun:${id}`)}::text[])`.execute(
    t.platform.db,
  );
  const byId = new Map(rows.map((row) => [row.id, row.xmin]));
  return eventIds.map((id) => byId.get(`mailgun:${id}`));
};

describe('Mailgun webhooks group-committed (B8)', () => {
  it('commits concurrent posts in fewer transactions than posts, each token with its event', async () => {
    const { accountId, sendId, token } = await seedSent();
    const variables = { 'user-variables': { [RECIPIENT_VARIABLE]: token } };
    await post(accountId, signed({ event: 'failed', severity: 'temporary', ...variables })); // caches the key
    const bodies = Array.from({ length: 40 }, (_, index) =>
      signed({ id: `group-${token}-${index}`, event: index === 0 ? 'delivered' : 'opened', ...variables }),
    );
    const answers = await Promise.all(bodies.map((body) => post(accountId, body)));
    expect(answers.map((answer) => answer.statusCode)).toEqual(bodies.map(() => 200));
    const tokens = await tokenTransactions(bodies.map((body) => body.signature.token));
    const events = await eventTransactions(bodies.map((body) => body['event-data'].id));
    expect(new Set(tokens).size).toBeLessThan(bodies.length);
    // Replay protection and the event in one transaction: they stand or fall together.
    expect(events).toEqual(tokens);
    expect(await sendRow(sendId)).toMatchObject({ delivered_count: 1, opened_count: 1 });

    // Verified in the same moment: the first is stored at once, alone (nothing waits for
    // company when nothing is being stored), the rest together in the next statement.
    const together = Array.from({ length: 30 }, (_, index) =>
      ZMailgunWebhook.parse(signed({ id: `tick-${token}-${index}`, event: 'clicked', ...variables })),
    );
    const tickAnswers = await Promise.all(together.map((body) => receiveMailgunWebhook(t.platform, accountId, body)));
    expect(tickAnswers.every((answer) => answer.status === 200)).toBe(true);
    const [first, ...rest] = await tokenTransactions(together.map((body) => body.signature.token));
    expect(new Set(rest).size).toBe(1);
    expect(rest[0]).not.toBe(first);
  });

  it('records a token replayed inside one group once, bound to its first event, as across groups', async () => {
    const { accountId, sendId, token } = await seedSent();
    const variables = { 'user-variables': { [RECIPIENT_VARIABLE]: token } };
    await post(accountId, signed({ event: 'failed', severity: 'temporary', ...variables })); // caches the key
    const opener = ZMailgunWebhook.parse(signed({ event: 'failed', severity: 'temporary', ...variables }));
    const original = ZMailgunWebhook.parse(signed({ id: `in-group-${token}`, event: 'opened', ...variables }));
    const forged = {
      ...original,
      'event-data': { ...original['event-data'], id: `forged-${token}`, event: 'clicked' },
    };
    // The opener is stored alone; the four others form the next group together.
    const answers = await Promise.all(
      [opener, original, forged, original, forged].map((body) => receiveMailgunWebhook(t.platform, accountId, body)),
    );
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 406, 200, 406]);
    const [openerTransaction, groupTransaction] = await tokenTransactions([
      opener.signature.token,
      original.signature.token,
    ]);
    expect(groupTransaction).not.toBe(openerTransaction);
    const rows = await t.platform.db
      .selectFrom('webhook_tokens')
      .select('event_id')
      .where('token', '=', original.signature.token)
      .execute();
    expect(rows).toEqual([{ event_id: `mailgun:${original['event-data'].id}` }]);
    expect(await eventTransactions([original['event-data'].id, forged['event-data'].id])).toEqual([
      groupTransaction,
      undefined,
    ]);
    // Across groups the same: the retry is taken, the forgery refused.
    expect((await post(accountId, original)).statusCode).toBe(200);
    expect((await post(accountId, forged)).statusCode).toBe(406);
    expect(await sendRow(sendId)).toMatchObject({ opened_count: 1, clicked_count: 0 });
  });

  it('answers a post only after the commit that holds its event', async () => {
    const { accountId, token } = await seedSent();
    const variables = { 'user-variables': { [RECIPIENT_VARIABLE]: token } };
    await post(accountId, signed({ event: 'failed', severity: 'temporary', ...variables })); // caches the key
    const body = signed({ id: `commit-order-${token}`, event: 'delivered', ...variables });
    // Another session holds the event's id, not committed: the group's statement writes
    // the token, then waits on that row before it can commit.
    const blocker = new pg.Client({ connectionString: t.databaseUrl });
    await blocker.connect();
    await blocker.query('begin');
    await blocker.query("insert into provider_events (id, payload) values ($1, '{}')", [
      `mailgun:${body['event-data'].id}`,
    ]);
    const happened: string[] = [];
    const answered = post(accountId, body).then((response) => {
      happened.push('answered');
      return response;
    });
    // The statement is waiting on the blocker's row lock.
    for (;;) {
      const { rows } = await blocker.query(
        `select count(*)::int as count from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock' and query like '%webhook_tokens%'`,
      );
      if (rows[0].count > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const [whileWaiting] = await tokenTransactions([body.signature.token]);
    happened.push(whileWaiting === undefined ? 'token not committed' : 'token committed');
    await blocker.query('rollback');
    await blocker.end();
    const response = await answered;
    const [afterAnswer] = await tokenTransactions([body.signature.token]);
    happened.push(afterAnswer === undefined ? 'token not committed' : 'token committed');
    expect(happened).toEqual(['token not committed', 'answered', 'token committed']);
    expect(response.statusCode).toBe(200);
    expect(await eventTransactions([body['event-data'].id])).toEqual([afterAnswer]);
  });

  it("fails only the bad event of a group, never its neighbours' posts", async () => {
    const kept = await seedSent();
    const gone = await seedSent();
    const keptVariables = { 'user-variables': { [RECIPIENT_VARIABLE]: kept.token } };
    // Both keys cached, then one account deleted: its key is still in memory for a minute.
    for (const seeded of [kept, gone]) {
      expect((await post(seeded.accountId, signed({ event: 'failed', severity: 'temporary' }))).statusCode).toBe(200);
    }
    await t.platform.db.deleteFrom('sending_accounts').where('id', '=', gone.accountId).execute();
    const opener = ZMailgunWebhook.parse(signed({ event: 'failed', severity: 'temporary', ...keptVariables }));
    const neighbours = Array.from({ length: 6 }, (_, index) =>
      ZMailgunWebhook.parse(signed({ id: `neighbour-${kept.token}-${index}`, event: 'opened', ...keptVariables })),
    );
    const orphan = ZMailgunWebhook.parse(signed({ id: `orphan-${gone.token}`, event: 'delivered' }));
    // A remote server's words with a NUL, which PostgreSQL's text cannot hold.
    const withNul = ZMailgunWebhook.parse(
      signed({
        id: `nul-${kept.token}`,
        event: 'failed',
        severity: 'permanent',
        'delivery-status': { code: 550, message: 'No such\u0000 user' },
        ...keptVariables,
      }),
    );
    const answers = await Promise.all([
      receiveMailgunWebhook(t.platform, kept.accountId, opener),
      ...neighbours.slice(0, 3).map((body) => receiveMailgunWebhook(t.platform, kept.accountId, body)),
      receiveMailgunWebhook(t.platform, gone.accountId, orphan),
      receiveMailgunWebhook(t.platform, kept.accountId, withNul),
      ...neighbours.slice(3).map((body) => receiveMailgunWebhook(t.platform, kept.accountId, body)),
    ]);
    // The deleted account's event is answered as for any account that takes no webhooks.
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 404, 200, 200, 200, 200]);
    expect(await eventTransactions([orphan['event-data'].id])).toEqual([undefined]);
    expect((await eventTransactions(neighbours.map((body) => body['event-data'].id))).every(Boolean)).toBe(true);
    const payload = await t.platform.db
      .selectFrom('provider_events')
      .select('payload')
      .where('id', '=', `mailgun:${withNul['event-data'].id}`)
      .executeTakeFirstOrThrow();
    expect(payload.payload).toMatchObject({ 'delivery-status': { message: 'No such user' } });
    expect(await sendRow(kept.sendId)).toMatchObject({ opened_count: 1, failed_count: 1 });
    // And from now on without the cache: still 404.
    expect((await post(gone.accountId, signed({ event: 'delivered' }))).statusCode).toBe(404);
  });
});

describe('Mailgun events (R10)', () => {
  it('counts an event once however often and in whatever order it arrives', async () => {
    const { accountId, sendId, token } = await seedSent();
    const variables = { 'user-variables': { [RECIPIENT_VARIABLE]: token } };
    const opened = { id: 'ev-open', event: 'opened', ...variables };
    const clicked = { id: 'ev-click', event: 'clicked', ...variables };
    const delivered = { id: 'ev-delivered', event: 'delivered', ...variables };
    // Opened and clicked before delivered, each five times.
    for (const event of [opened, clicked, opened, clicked, delivered, opened, delivered, clicked, opened, delivered]) {
      expect((await post(accountId, signed(event))).statusCode).toBe(200);
    }
    for (let index = 0; index < 2; index++) await post(accountId, signed(delivered));
    // A second open is another event: the recipient still counts once.
    await post(accountId, signed({ id: 'ev-open-2', event: 'opened', ...variables }));
    expect(await sendRow(sendId)).toMatchObject({ delivered_count: 1, opened_count: 1, clicked_count: 1 });
  });

  it("counts many recipients in one batch once each and ignores a token of another account's send", async () => {
    const first = await seedSent();
    const second = await seedSent();
    const { user, accountId, sendId } = first;
    const tokens = Array.from({ length: 5 }, () => randomBytes(16).toString('hex'));
    await t.platform.db
      .insertInto('send_recipients')
      .values(
        tokens.map((token, index) => ({
          send_id: sendId,
          user_id: user.id,
          email: `more${index}@example.com`,
          token,
          status: 'sent' as const,
        })),
      )
      .execute();
    for (const token of [first.token, ...tokens]) {
      const variables = { 'user-variables': { [RECIPIENT_VARIABLE]: token } };
      for (const event of ['delivered', 'opened', 'opened', 'clicked']) {
        expect((await post(accountId, signed({ event, ...variables }))).statusCode).toBe(200);
      }
    }
    // Signed with this account's key, naming the other account's recipient: not counted there or here.
    const foreign = { event: 'delivered', 'user-variables': { [RECIPIENT_VARIABLE]: second.token } };
    expect((await post(accountId, signed(foreign))).statusCode).toBe(200);
    expect(await sendRow(sendId)).toMatchObject({ delivered_count: 6, opened_count: 6, clicked_count: 6 });
    expect(await sendRow(second.sendId)).toMatchObject({ delivered_count: 0 });
    const recipients = await t.platform.db
      .selectFrom('send_recipients')
      .select(['delivered_at', 'opened_at', 'clicked_at'])
      .where('send_id', '=', sendId)
      .execute();
    expect(recipients).toHaveLength(6);
    for (const recipient of recipients) {
      expect(recipient.delivered_at && recipient.opened_at && recipient.clicked_at).toBeTruthy();
    }
  });

  it('suppresses a permanent failure, leaves a temporary one to Mailgun, and unsubscribes a complaint', async () => {
    const { user, accountId, sendId, token } = await seedSent();
    const variables = { 'user-variables': { [RECIPIENT_VARIABLE]: token } };
    await post(accountId, signed({ event: 'failed', severity: 'temporary', ...variables }));
    expect((await sendRow(sendId)).failed_count).toBe(0);
    for (let index = 0; index < 3; index++) {
      await post(
        accountId,
        signed({
          id: 'ev-bounce',
          event: 'failed',
          severity: 'permanent',
          'delivery-status': { code: 550, message: 'No such mailbox' },
          ...variables,
        }),
      );
    }
    await post(accountId, signed({ id: 'ev-complaint', event: 'complained', ...variables }));
    expect(await sendRow(sendId)).toMatchObject({ failed_count: 1, complained_count: 1 });
    const queued = await t.platform.db
      .selectFrom('provider_events')
      .select('id')
      .where('applied_at', 'is', null)
      .execute();
    expect(queued).toEqual([]);
    const suppressions = await t.platform.db
      .selectFrom('suppressions')
      .select(['email', 'type', 'message'])
      .where('user_id', '=', user.id)
      .orderBy('type')
      .execute();
    expect(suppressions).toEqual([
      { email: 'reader@example.com', type: 'bounce', message: 'No such mailbox' },
      { email: 'reader@example.com', type: 'complained', message: null },
    ]);
    await applyPendingEvents(t.platform);
    const member = await t.platform.db
      .selectFrom('list_members')
      .select('subscribed')
      .where('user_id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(member.subscribed).toBe(false);
  });

  it('records each provider event once as a delivery event, however often and in whatever order it arrives (R10)', async () => {
    const { accountId, sendId, token } = await seedSent();
    const variables = { 'user-variables': { [RECIPIENT_VARIABLE]: token } };
    const happened = Math.floor(Date.now() / 1000) - 3600;
    // Mailgun's event ids are unique across its accounts: none of this file's other tests uses these.
    const id = (name: string) => `r10-${token}-${name}`;
    const truth = [
      { id: id('delivered'), event: 'delivered', timestamp: happened },
      { id: id('open-1'), event: 'opened', timestamp: happened + 60 },
      { id: id('open-2'), event: 'opened', timestamp: happened + 120 },
      { id: id('click'), event: 'clicked', timestamp: happened + 130 },
      {
        id: id('soft'),
        event: 'failed',
        severity: 'temporary',
        'delivery-status': { code: 421, message: 'Try later' },
      },
      { id: id('complaint'), event: 'complained', timestamp: happened + 200 },
    ];
    // Each three times, shuffled, some applied between arrivals.
    const arrivals = [...truth, ...truth, ...truth].sort(() => Math.random() - 0.5);
    for (const [index, event] of arrivals.entries()) {
      expect((await post(accountId, signed({ ...event, ...variables }))).statusCode).toBe(200);
      if (index % 5 === 0) await applyPendingEvents(t.platform);
    }
    await applyPendingEvents(t.platform);
    const events = await t.platform.db
      .selectFrom('delivery_events')
      .select(['provider_event_id', 'type', 'severity', 'source', 'occurred_at'])
      .where('send_id', '=', sendId)
      .orderBy('provider_event_id')
      .execute();
    // A click that arrived before any open brought an open counted from it (issue 45 §3): an
    // event of Sendwell's own, with no provider id, the recipient's first open.
    const implied = events.filter((event) => event.provider_event_id === null);
    expect(implied.map((event) => event.type)).toEqual(implied.length === 0 ? [] : ['opened']);
    const provided = events.filter((event) => event.provider_event_id !== null);
    expect(provided.map(({ occurred_at: _at, ...event }) => event)).toEqual([
      { provider_event_id: id('click'), type: 'clicked', severity: null, source: 'mailgun' },
      { provider_event_id: id('complaint'), type: 'complained', severity: null, source: 'mailgun' },
      { provider_event_id: id('delivered'), type: 'delivered', severity: null, source: 'mailgun' },
      { provider_event_id: id('open-1'), type: 'opened', severity: null, source: 'mailgun' },
      { provider_event_id: id('open-2'), type: 'opened', severity: null, source: 'mailgun' },
      { provider_event_id: id('soft'), type: 'deferred', severity: 'temporary', source: 'mailgun' },
    ]);
    // When it happened, not when it arrived.
    expect(events.find((event) => event.provider_event_id === id('delivered'))!.occurred_at.getTime()).toBe(
      happened * 1000,
    );
    const stats = await t.platform.db
      .selectFrom('account_daily_stats')
      .select(['delivered', 'opened', 'clicked', 'deferred', 'complained', 'failed'])
      .where('account_id', '=', accountId)
      .execute();
    const total = (key: keyof (typeof stats)[number]) => stats.reduce((sum, row) => sum + row[key], 0);
    expect({
      delivered: total('delivered'),
      opened: total('opened'),
      clicked: total('clicked'),
      deferred: total('deferred'),
      complained: total('complained'),
      failed: total('failed'),
      // Both opens stay events; the figure counts the recipient once, as its send does (R33).
    }).toEqual({ delivered: 1, opened: 1, clicked: 1, deferred: 1, complained: 1, failed: 0 });
    expect(await sendRow(sendId)).toMatchObject({
      delivered_count: 1,
      opened_count: 1,
      clicked_count: 1,
      complained_count: 1,
    });
  });

  it('takes a failure whose provider fields come as null or the code as a string, rather than refusing it into hours of retries', async () => {
    const { user, accountId, sendId, token } = await seedSent();
    const response = await post(
      accountId,
      signed({
        event: 'failed',
        severity: 'permanent',
        reason: null,
        'delivery-status': { code: '550', message: '5.1.1 The email account does not exist', description: null },
        'user-variables': { [RECIPIENT_VARIABLE]: token },
      }),
    );
    expect(response.statusCode).toBe(200);
    expect((await sendRow(sendId)).failed_count).toBe(1);
    const suppression = await t.platform.db
      .selectFrom('suppressions')
      .select(['type', 'message'])
      .where('user_id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(suppression).toEqual({ type: 'bounce', message: '5.1.1 The email account does not exist' });
  });
});

describe('Mailgun retries after an outage (R31)', () => {
  it('accepts an event signed two hours ago once and applies it once however often it is retried', async () => {
    const { accountId, sendId, token } = await seedSent();
    // Sendwell was down: Mailgun's retry two hours on carries the original signature block.
    const retried = signed(
      { event: 'delivered', 'user-variables': { [RECIPIENT_VARIABLE]: token } },
      { timestamp: secondsAgo(2 * 3600) },
    );
    expect((await post(accountId, retried)).statusCode).toBe(200);
    expect((await sendRow(sendId)).delivered_count).toBe(1);
    // Its answer was lost, say: the same delivery three more times is answered 200 (so Mailgun stops), applied once.
    for (let attempt = 0; attempt < 3; attempt++) {
      expect((await post(accountId, retried)).statusCode).toBe(200);
    }
    expect((await sendRow(sendId)).delivered_count).toBe(1);
    const stored = await t.platform.db
      .selectFrom('provider_events')
      .select('id')
      .where('id', '=', `mailgun:${retried['event-data'].id}`)
      .execute();
    expect(stored).toHaveLength(1);
  });

  it('refuses with 406 a tampered retry, a signature far older than the horizon and one from the future', async () => {
    const { accountId, sendId, token } = await seedSent();
    const variables = { 'user-variables': { [RECIPIENT_VARIABLE]: token } };
    const tampered = signed({ event: 'delivered', ...variables }, { timestamp: secondsAgo(2 * 3600) });
    tampered.signature.timestamp = String(secondsAgo(2 * 3600 - 1));
    const farOlder = signed({ event: 'delivered', ...variables }, { timestamp: secondsAgo(3 * 24 * 3600) });
    const future = signed({ event: 'delivered', ...variables }, { timestamp: secondsAgo(-3600) });
    for (const body of [tampered, farOlder, future]) {
      const response = await post(accountId, body);
      expect(response.statusCode).toBe(406);
      // Retried later by Mailgun (it will not: 406), still refused.
      expect((await post(accountId, body)).statusCode).toBe(406);
    }
    expect((await sendRow(sendId)).delivered_count).toBe(0);
  });

  it('keeps a retried event apart from a replay when both race on one token', async () => {
    const { accountId, sendId, token } = await seedSent();
    const variables = { 'user-variables': { [RECIPIENT_VARIABLE]: token } };
    await post(accountId, signed({ event: 'failed', severity: 'temporary', ...variables })); // caches the key
    const original = ZMailgunWebhook.parse(signed({ event: 'opened', ...variables }, { timestamp: secondsAgo(600) }));
    const forged = { ...original, 'event-data': { ...original['event-data'], id: 'forged', event: 'clicked' } };
    const answers = await Promise.all(
      [original, original, forged, original].map((body) => receiveMailgunWebhook(t.platform, accountId, body)),
    );
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 406, 200]);
    expect(await sendRow(sendId)).toMatchObject({ opened_count: 1, clicked_count: 0 });
  });
});

/** The hourly `system.cleanup` job, run now. */
const runCleanup = () =>
  cleanupJob.handler({}, t.platform, { jobId: 'test', retryCount: 0, signal: new AbortController().signal });

describe('Mailgun webhook storage (R30)', () => {
  it('stores only the fields it uses, the provider text of a failure clipped', async () => {
    const { accountId, token } = await seedSent();
    const bulky = {
      timestamp: 1_700_000_000.5,
      envelope: { sender: 'news@mg.acme.test', targets: 'reader@example.com', transport: 'smtp' },
      message: { headers: { 'message-id': 'x@mg', subject: 'A'.repeat(5000) }, attachments: [], size: 123 },
      flags: { 'is-routed': false },
      'user-variables': { [RECIPIENT_VARIABLE]: token, other: 'z'.repeat(5000) },
      tags: ['t'.repeat(2000)],
    };
    const failed = signed({
      ...bulky,
      event: 'failed',
      severity: 'permanent',
      reason: 'bounce',
      'delivery-status': {
        code: 550,
        message: `5.1.1 ${'m'.repeat(5000)}`,
        description: 'd'.repeat(5000),
        'attempt-no': 1,
        'mx-host': 'mx.example.com',
      },
    });
    const delivered = signed({ ...bulky, event: 'delivered', 'delivery-status': { code: 250, message: 'OK' } });
    for (const body of [failed, delivered]) expect((await post(accountId, body)).statusCode).toBe(200);
    const payloadOf = async (id: string) =>
      (
        await t.platform.db
          .selectFrom('provider_events')
          .select('payload')
          .where('id', '=', `mailgun:${id}`)
          .executeTakeFirstOrThrow()
      ).payload;
    expect(await payloadOf(failed['event-data'].id)).toEqual({
      id: failed['event-data'].id,
      event: 'failed',
      // Kept: the delivery event is dated when it happened.
      timestamp: 1_700_000_000.5,
      severity: 'permanent',
      recipient: 'reader@example.com',
      reason: 'bounce',
      'user-variables': { [RECIPIENT_VARIABLE]: token },
      'delivery-status': { code: 550, message: `5.1.1 ${'m'.repeat(994)}`, description: 'd'.repeat(1000) },
    });
    expect(await payloadOf(delivered['event-data'].id)).toEqual({
      id: delivered['event-data'].id,
      event: 'delivered',
      timestamp: 1_700_000_000.5,
      recipient: 'reader@example.com',
      'user-variables': { [RECIPIENT_VARIABLE]: token },
    });
  });

  it('prunes tokens past the retry horizon and applied events past the retention on the hourly cleanup', async () => {
    const { accountId } = await seedSent();
    const prefix = randomBytes(4).toString('hex');
    const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3600_000);
    await t.platform.db
      .insertInto('webhook_tokens')
      .values([
        { token: `${prefix}-token-old`, event_id: 'e', created_at: hoursAgo(25) },
        { token: `${prefix}-token-recent`, event_id: 'e', created_at: hoursAgo(13) },
      ])
      .execute();
    const retentionHours = t.platform.config.providerEventRetentionDays * 24;
    await t.platform.db
      .insertInto('provider_events')
      .values([
        // Applied long ago: gone. Applied recently, or never applied however old: kept.
        {
          id: `${prefix}-applied-old`,
          account_id: accountId,
          payload: '{}',
          created_at: hoursAgo(retentionHours + 2),
          applied_at: hoursAgo(retentionHours + 1),
        },
        {
          id: `${prefix}-applied-recent`,
          account_id: accountId,
          payload: '{}',
          created_at: hoursAgo(retentionHours + 2),
          applied_at: hoursAgo(retentionHours - 1),
        },
        { id: `${prefix}-pending-old`, account_id: accountId, payload: '{}', created_at: hoursAgo(retentionHours + 2) },
      ])
      .execute();
    await runCleanup();
    const tokens = await t.platform.db
      .selectFrom('webhook_tokens')
      .select('token')
      .where('token', 'like', `${prefix}-%`)
      .execute();
    expect(tokens.map((row) => row.token)).toEqual([`${prefix}-token-recent`]);
    const events = await t.platform.db
      .selectFrom('provider_events')
      .select('id')
      .where('id', 'like', `${prefix}-%`)
      .orderBy('id')
      .execute();
    expect(events.map((row) => row.id)).toEqual([`${prefix}-applied-recent`, `${prefix}-pending-old`]);
  });

  it('still refuses a replayed token while its signature could pass', async () => {
    const { accountId } = await seedSent();
    const first = signed({ event: 'opened' }, { timestamp: secondsAgo(SIGNATURE_MAX_AGE_SECONDS - 60) });
    expect((await post(accountId, first)).statusCode).toBe(200);
    await runCleanup();
    const replayed = { ...first, 'event-data': { ...first['event-data'], id: 'replayed-after-cleanup' } };
    expect((await post(accountId, replayed)).statusCode).toBe(406);
  });
});
