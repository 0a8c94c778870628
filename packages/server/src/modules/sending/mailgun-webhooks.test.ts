import { createHmac, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedUser, startTestApp, type TTestApp } from '../../../test/app';
import { sealSecret } from '../accounts/secrets';
import { applyPendingEvents, RECIPIENT_VARIABLE, receiveMailgunWebhook, ZMailgunWebhook } from './mailgun-webhooks';

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

describe('Mailgun webhooks (R9)', () => {
  it('accepts a signed event and refuses tampered, foreign-key, stale and replayed ones', async () => {
    const { accountId, sendId, token } = await seedSent();
    const event = { event: 'delivered', 'user-variables': { [RECIPIENT_VARIABLE]: token } };
    const good = signed(event);
    expect((await post(accountId, good)).statusCode).toBe(200);
    expect((await sendRow(sendId)).delivered_count).toBe(1);

    const tampered = signed({ ...event, id: 'other-1' });
    tampered.signature.signature = tampered.signature.signature.replace(/^./, (first) => (first === 'a' ? 'b' : 'a'));
    const foreignKey = signed({ ...event, id: 'other-2' }, { key: 'not-the-key' });
    const stale = signed({ ...event, id: 'other-3' }, { timestamp: Math.floor(Date.now() / 1000) - 3600 });
    const replayed = signed({ ...event, id: 'other-4' }, { token: good.signature.token });
    for (const body of [tampered, foreignKey, stale, replayed]) {
      expect((await post(accountId, body)).statusCode).toBe(401);
    }
    expect((await post(999_999, signed(event))).statusCode).toBe(404);
    expect((await sendRow(sendId)).delivered_count).toBe(1);
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
    expect(statuses.filter((status) => status === 401)).toHaveLength(sameToken.length - 1);
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
});
