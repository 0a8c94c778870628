import fs from 'node:fs';
import path from 'node:path';
import { defaultDailyPlan, ratesOf, type TFigures } from '@sendwell/contracts';
import { parse } from 'csv-parse/sync';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAgent,
  seedTestInboxAccount,
  seedUser,
  startTestApp,
  type TAgent,
  type TTestApp,
} from '../../../test/app';
import { waitFor } from '../../../test/wait';
import { syncMessages, tickCampaigns } from '../campaigns/scheduler';
import { dispatch, snapshotSend } from '../delivery/delivery.jobs';
import { createSend, createSourcedSend } from '../delivery/delivery.service';
import { bounceListener } from '../delivery-events/bounces';
import { startListener } from '../inbound/receiver';

/**
 * One counting definition (R33): a send to a mix of outcomes (accepted, bounced hard at
 * handover and hard after acceptance, soft, complained, opened and clicked twice,
 * unsubscribed), a spam test beside it, the message looked at in the test inbox; then the
 * dashboard, History, its counts and details, both exports and a drip campaign's views all
 * show the same figures, each recipient once.
 */

const DOMAIN = 'bounces.sendwell.test';
const REPORTS = path.join(import.meta.dirname, '..', '..', '..', 'test', 'bounce-reports');
let t: TTestApp;
let receiver: Awaited<ReturnType<typeof startListener>>;

beforeAll(async () => {
  t = await startTestApp({ BOUNCE_DOMAIN: DOMAIN, PUBLIC_URL: 'https://sendwell.test' });
  receiver = await startListener(t.platform, bounceListener, { port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

/** A signed-in user with the test inbox as its sending account. */
const signedIn = async () => {
  const user = await seedUser(t.platform, { planId: 3 });
  const agent = createAgent(t.app);
  await agent.signIn(user.email, user.password);
  const accountId = await seedTestInboxAccount(t.platform, user.id);
  return { user, agent, accountId };
};

const mailTo = async (to: string, raw: Buffer) => {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port: receiver.port,
    secure: false,
    ignoreTLS: true,
  });
  try {
    await transport.sendMail({ envelope: { from: '', to }, raw });
  } finally {
    transport.close();
  }
};

/** The message the test inbox kept for an address (what the recipient got). */
const keptFor = async (userId: number, email: string) =>
  t.platform.db
    .selectFrom('test_inbox_messages')
    .select(['id', 'html_body', 'raw'])
    .where('user_id', '=', userId)
    .where((eb) => eb(eb.val(email), '=', eb.fn.any('rcpt_to')))
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow();

/** A corpus report about a kept message, with its envelope sender and Message-ID in place. */
const reportAbout = async (file: string, userId: number, email: string) => {
  const raw = (await keptFor(userId, email)).raw!.toString('latin1');
  const header = (name: string) => new RegExp(`^${name}:\\s*(.+)$`, 'im').exec(raw)?.[1]?.trim() ?? '';
  const messageId = header('Message-ID');
  const text = fs
    .readFileSync(path.join(REPORTS, file))
    .toString('latin1')
    .replaceAll('alice@example.org', email)
    .replace(/\{\{message-id:[^}]+\}\}/g, messageId)
    .replace(/\{\{verp:[^}]+\}\}/g, 'bounces@elsewhere.example')
    .replace(/\{\{feedback\}\}/g, `fbl@${DOMAIN}`);
  return Buffer.from(text, 'latin1');
};

/** What a recipient's mail client and a mailbox provider do with the message: open, click, unsubscribe. */
const recipientActs = async (userId: number, email: string, acts: ('open' | 'click' | 'unsubscribe')[]) => {
  const kept = await keptFor(userId, email);
  const html = kept.html_body!;
  const pixel = /<img src="https:\/\/sendwell\.test(\/api\/t\/o\/[^"]+)"/.exec(html)![1]!;
  const link = /href="https:\/\/sendwell\.test(\/api\/t\/c\/[^"]+)"/.exec(html)![1]!;
  const oneClick = /List-Unsubscribe: <https:\/\/sendwell\.test(\/api\/unsubscribe\/[^>]+)>/.exec(
    kept.raw!.toString('latin1').replace(/\r\n[ \t]+/g, ' '),
  )![1]!;
  for (const act of acts) {
    const response =
      act === 'open'
        ? await t.app.inject({ url: pixel })
        : act === 'click'
          ? await t.app.inject({ url: link })
          : await t.app.inject({
              method: 'POST',
              url: oneClick,
              headers: { 'content-type': 'application/x-www-form-urlencoded' },
              payload: 'List-Unsubscribe=One-Click',
            });
    expect(response.statusCode, `${act} ${email}`).toBeLessThan(400);
  }
};

const csvRows = (body: string) => parse(body.replace(/^\uFEFF/, ''), { columns: true }) as Record<string, string>[];

/** The figures an event export shows: its counted rows per event. */
const figuresOfExport = (rows: Record<string, string>[], eventColumn = 'Event') => {
  const counted = (type: string) => rows.filter((row) => row[eventColumn] === type && row.Counted === 'yes').length;
  return {
    accepted: counted('sent') + counted('accepted'),
    bounced: counted('failed'),
    complained: counted('complained'),
    unsubscribed: counted('unsubscribed'),
    opened: counted('opened'),
    clicked: counted('clicked'),
  };
};

const dashboardOf = async (agent: TAgent) => (await agent.get('/api/dashboard')).json().stats;

describe('one counting definition on every screen (R33)', () => {
  it('shows a send with mixed outcomes with the same figures on the dashboard, History, its details and the exports', async () => {
    const { user, agent, accountId } = await signedIn();
    const { id: listId } = await t.platform.db
      .insertInto('mailing_lists')
      .values({
        user_id: user.id,
        account_id: accountId,
        alias: 'news',
        domain: 'acme.test',
        address: 'news@acme.test',
        name: 'News',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const members = [
      'opener@example.org', // opens twice, clicks twice
      'full@example.org', // soft bounce after acceptance (a full mailbox)
      'complainer@example.org', // reports it as spam through a feedback loop
      'leaver@example.org', // opens, then unsubscribes with one click
      'nobody@bounce.test', // refused at handover: hard
      'later@bounce-later.test', // accepted, then bounced: hard, the same recipient
    ];
    await t.platform.db
      .insertInto('list_members')
      .values(
        members.map((email) => ({ user_id: user.id, list_id: listId, account_id: accountId, email, fullname: '' })),
      )
      .execute();
    const sendId = await createSend(t.platform, user.id, {
      accountId,
      fromName: 'Acme',
      fromAddress: 'news@acme.test',
      subject: 'November news',
      html: '<p>Hello</p><a href="https://acme.test/offer">Offer</a>',
      listIds: [listId],
    });
    await snapshotSend(t.platform, sendId);
    await dispatch(t.platform, sendId);
    // A spam test through the same account is not a send on the dashboard.
    const spamTest = await t.platform.db.transaction().execute((trx) =>
      createSourcedSend(trx, t.platform, user.id, {
        source: 'spam-test',
        accountId,
        fromName: 'Acme',
        fromAddress: 'news@acme.test',
        subject: 'Spam test',
        html: '<p>Test</p>',
        recipients: [{ email: 'check@spamtest.example' }],
      }),
    );
    await snapshotSend(t.platform, spamTest.sendId);
    await dispatch(t.platform, spamTest.sendId);

    // The late bounce comes back on its own (the test inbox's asynchronous bounce).
    await waitFor(
      async () =>
        (
          await t.platform.db
            .selectFrom('suppressions')
            .select('id')
            .where('user_id', '=', user.id)
            .where('email', '=', 'later@bounce-later.test')
            .execute()
        ).length === 1,
      10_000,
      'the late bounce',
    );
    const full = await reportAbout('24-office365-mailbox-full.eml', user.id, 'full@example.org');
    await mailTo(`fbl@${DOMAIN}`, full); // a report at the feedback address, tied to its message by its Message-ID
    await mailTo(`fbl@${DOMAIN}`, await reportAbout('58-arf-yahoo-cfl.eml', user.id, 'complainer@example.org'));
    await recipientActs(user.id, 'opener@example.org', ['open', 'open', 'click', 'click']);
    await recipientActs(user.id, 'leaver@example.org', ['open', 'unsubscribe', 'unsubscribe']);
    // The user looks at the message in the test inbox: its open pixel is not in what is shown.
    const kept = await keptFor(user.id, 'opener@example.org');
    const shown = await agent.get(`/api/test-inbox/messages/${kept.id}/html`);
    expect(shown.statusCode).toBe(200);
    expect(kept.html_body).toContain('/api/t/o/');
    expect(shown.body).not.toContain('/api/t/o/');
    expect(shown.body).toContain('/api/t/c/');

    const expected: TFigures = {
      recipients: 6,
      accepted: 5,
      delivered: 0,
      deferred: 0,
      bouncedHard: 2,
      bouncedSoft: 1,
      complained: 1,
      unsubscribed: 1,
      opened: 2,
      clicked: 1,
      unknown: 0,
    };
    const bounced = expected.bouncedHard + expected.bouncedSoft;

    // The dashboard.
    const stats = await dashboardOf(agent);
    expect(stats.general.recipients).toBe(expected.recipients);
    expect(stats.tracking).toEqual({
      sent: expected.accepted,
      delivered: 0,
      opened: expected.opened,
      clicked: expected.clicked,
      bounced,
      unsubscribed: expected.unsubscribed,
      complained: expected.complained,
      bounced_hard: expected.bouncedHard,
      bounced_soft: expected.bouncedSoft,
      deferred: 0,
      unknown: 0,
    });
    expect(stats.percentage).toEqual(ratesOf(expected));
    expect(stats.percentage.bounced).toBe(50);
    expect(stats.table.at(-1)).toMatchObject({
      accepted: { total: expected.accepted },
      failed: { permanent: { total: bounced }, temporary: { total: 0 } },
      complained: { total: expected.complained },
      total: expected.recipients,
    });

    // History, its counts and its details.
    const history = (await agent.get('/api/history')).json().data;
    expect(history).toEqual([
      expect.objectContaining({ id: sendId, recipients_count: expected.recipients, sent_count: expected.accepted }),
    ]);
    const sendCounts = {
      recipients_count: expected.recipients,
      sent_count: expected.accepted,
      delivered_count: 0,
      failed_count: bounced,
      bounced_hard_count: expected.bouncedHard,
      bounced_soft_count: expected.bouncedSoft,
      complained_count: expected.complained,
      unsubscribed_count: expected.unsubscribed,
      clicked_count: expected.clicked,
      opened_count: expected.opened,
      unknown_count: 0,
    };
    expect((await agent.get(`/api/history/get-counts/${sendId}`)).json().counts).toEqual(sendCounts);
    const details = (type: string) =>
      agent.get(`/api/history/details/${accountId}/${sendId}`, { query: { event_type: type, per_page: '100' } });
    const failedRows = (await details('failed')).json();
    expect(failedRows.counts).toEqual(sendCounts);
    expect(failedRows.meta.total).toBe(bounced);
    expect((await details('complained')).json().meta.total).toBe(expected.complained);
    expect((await details('unsubscribed')).json().meta.total).toBe(expected.unsubscribed);
    const opens = (await details('opened')).json().data as { is_first: boolean }[];
    expect(opens.filter((row) => row.is_first)).toHaveLength(expected.opened);
    expect(opens).toHaveLength(3); // every open is an event; each recipient counts once

    // Both exports count the same rows.
    const historyCsv = csvRows((await agent.get(`/api/history/details/${accountId}/${sendId}/export`)).body);
    const dashboardCsv = csvRows((await agent.get('/api/dashboard/delivery-events/export')).body);
    const inExports = {
      accepted: expected.accepted,
      bounced,
      complained: expected.complained,
      unsubscribed: expected.unsubscribed,
      opened: expected.opened,
      clicked: expected.clicked,
    };
    expect(figuresOfExport(historyCsv)).toEqual(inExports);
    expect(figuresOfExport(dashboardCsv)).toEqual(inExports);
    // The spam test's message is on neither.
    expect(dashboardCsv.some((row) => row.Recipient === 'check@spamtest.example')).toBe(false);
    // The event table's totals are the same counters'.
    const failedEvents = (
      await agent.get('/api/dashboard/delivery-events', { query: { event_type: 'failed' } })
    ).json();
    expect(failedEvents.meta.total).toBe(bounced);
    expect((await agent.get('/api/dashboard/delivery-events')).json().meta.total).toBe(dashboardCsv.length);
  });

  it('counts a reader who clicked without opening as opened, once, on every screen and for the re-send (issue 45 §3)', async () => {
    const { user, agent, accountId } = await signedIn();
    const { id: listId } = await t.platform.db
      .insertInto('mailing_lists')
      .values({
        user_id: user.id,
        account_id: accountId,
        alias: 'clicks',
        domain: 'acme.test',
        address: 'clicks@acme.test',
        name: 'Clicks',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    // One reads with images blocked and clicks twice; one opens, then clicks; one does nothing.
    const members = ['clicker@example.org', 'opener@example.org', 'idle@example.org'];
    await t.platform.db
      .insertInto('list_members')
      .values(members.map((email) => ({ user_id: user.id, list_id: listId, account_id: accountId, email })))
      .execute();
    const sendId = await createSend(t.platform, user.id, {
      accountId,
      fromName: 'Acme',
      fromAddress: 'news@acme.test',
      subject: 'Clicks',
      html: '<p>Hello</p><a href="https://acme.test/offer">Offer</a>',
      listIds: [listId],
    });
    await snapshotSend(t.platform, sendId);
    await dispatch(t.platform, sendId);
    await recipientActs(user.id, 'clicker@example.org', ['click', 'click']);
    await recipientActs(user.id, 'opener@example.org', ['open', 'click']);

    const counts = (await agent.get(`/api/history/get-counts/${sendId}`)).json().counts;
    expect(counts).toMatchObject({ opened_count: 2, clicked_count: 2 });
    expect((await dashboardOf(agent)).tracking).toMatchObject({ opened: 2, clicked: 2 });
    const opens = (
      await agent.get(`/api/history/details/${accountId}/${sendId}`, {
        query: { event_type: 'opened', per_page: '100' },
      })
    ).json().data as { recipient: string; is_first: boolean }[];
    // The clicker's open is counted once (from the first click); the opener's own open stands.
    expect(opens.map((row) => [row.recipient, row.is_first]).sort()).toEqual([
      ['clicker@example.org', true],
      ['opener@example.org', true],
    ]);
    // The re-send to those who did not open reaches the idle reader alone.
    await t.platform.db.updateTable('sends').set({ status: 'finished' }).where('id', '=', sendId).execute();
    const notOpened = await agent.get(`/api/history/resend-engagement/${sendId}`, {
      query: { audience: 'not-opened' },
    });
    expect(notOpened.json().count).toBe(1);
  });

  it('counts a drip campaign’s messages by the same definition as the dashboard', async () => {
    const seeded = await signedIn();
    const { agent, user } = seeded;
    const start = await agent.put('/api/campaigns/save-campaign/1', {
      accountId: seeded.accountId,
      title: 'Welcome',
      senderName: 'Acme',
      signature: '',
    });
    const temporary = start.json().temporaryKey as string;
    await agent.put('/api/campaigns/save-campaign/2', {
      temporary,
      recipients: [{ email: 'reader@example.org' }, { email: 'full@example.org' }, { email: 'gone@bounce.test' }],
    });
    const everyDay = defaultDailyPlan().map((day) => ({
      ...day,
      checked: true,
      startHour: 12,
      startMin: 0,
      startType: 'AM' as const,
      endHour: 11,
      endMin: 59,
      endType: 'PM' as const,
    }));
    await agent.put('/api/campaigns/save-campaign/3', {
      temporary,
      drips: [{ subject: 'Welcome', body: '<p>Hi</p><a href="https://acme.test/start">Start</a>' }],
      dailyPlan: everyDay,
    });
    await agent.put('/api/campaigns/save-campaign/4', { temporary });
    await agent.put('/api/campaigns/save-campaign/5', {
      temporary,
      options: { acceptLaw: true, trackOpens: true, trackClicks: true },
    });
    const finished = await agent.put('/api/campaigns/save-campaign/6', { temporary });
    expect(finished.statusCode, finished.body).toBe(200);
    const campaignId = finished.json().id as number;
    // Three hand-overs at the account's pace, each sent by the engine.
    let now = new Date();
    for (let handed = 0; handed < 3; ) {
      handed += await tickCampaigns(t.platform, now, { sync: false });
      now = new Date(now.getTime() + 200_000);
    }
    const sends = await t.platform.db
      .selectFrom('campaign_messages')
      .select('send_id')
      .where('campaign_id', '=', campaignId)
      .execute();
    for (const { send_id: sendId } of sends) {
      await snapshotSend(t.platform, sendId!);
      await dispatch(t.platform, sendId!);
    }
    await mailTo(`fbl@${DOMAIN}`, await reportAbout('02-postfix-mailbox-full.eml', user.id, 'full@example.org'));
    await recipientActs(user.id, 'reader@example.org', ['open', 'open', 'click', 'unsubscribe']);
    await syncMessages(t.platform);

    const overview = (await agent.get(`/api/campaigns/get-data/overview/${campaignId}`)).json().campaign;
    const stats = await dashboardOf(agent);
    expect(overview).toMatchObject({
      recipients: 3,
      sent: stats.tracking.sent,
      delivered: stats.tracking.delivered,
      opened: stats.tracking.opened,
      clicked: stats.tracking.clicked,
      bounced: stats.tracking.bounced,
      unsubscribed: stats.tracking.unsubscribed,
    });
    expect(overview).toMatchObject({ sent: 2, bounced: 2, opened: 1, clicked: 1, unsubscribed: 1 });
    const list = (await agent.get('/api/campaigns')).json().data;
    expect(list).toEqual([
      expect.objectContaining({ id: campaignId, sent_count: 2, opened_count: 1, bounced_count: 2 }),
    ]);
    const emails = (await agent.get(`/api/campaigns/get-data/emails/${campaignId}`)).json().emails;
    expect(emails[0]).toMatchObject({ sent_count: 2, opened_count: 1, clicked_count: 1, bounced_count: 2 });
  });
});
