import { defaultDailyPlan, SEND_MESSAGES } from '@sendwell/contracts';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshotSendJob } from '../src/modules/delivery/delivery.jobs';
import { createSend, createSourcedSend } from '../src/modules/delivery/delivery.service';
import { suppress } from '../src/modules/suppression/suppression.service';
import { ValidationError } from '../src/platform/errors';
import { startTestApp, type TTestApp } from './app';
import { queuedJobRunner } from './jobs';
import { seedTestInboxSender } from './sending';

/**
 * R42: every route that creates or changes a send reads what the user wrote of it by one
 * rule (contracts `SEND_FIELDS`, the engine's `checkedContent`): the same bad copies,
 * Reply-To and subjects get the same 422 on each; copies are kept in their stored form,
 * once each, and a suppressed copy gets nothing, however it is spelled. Rows written before
 * the rule (by the older scheduled edit route, which checked nothing) are refused by Send
 * again and the re-send by engagement instead of going out.
 */

let t: TTestApp;
beforeAll(async () => {
  t = await startTestApp({ PUBLIC_URL: 'https://sendwell.test' });
});
afterAll(async () => t?.close());

const SUPPRESSED = 'gone@example.test';

const seed = async () => {
  const { user, agent, accountId, listId } = await seedTestInboxSender(t);
  await suppress(t.platform.db, [
    { userId: user.id, email: SUPPRESSED, type: 'bounce', reason: 'permanent failure', source: 'smtp' },
  ]);
  return { user, agent, accountId, listId };
};
type TSeeded = Awaited<ReturnType<typeof seed>>;

/** The bad inputs every path is walked with, under each path's own field names, and what each must answer. */
const BAD = [
  { field: 'cc', value: 'nobody', message: SEND_MESSAGES.copyInvalid },
  { field: 'cc', value: 'ann@example.com\r\nBcc: victim@evil.test', message: SEND_MESSAGES.lineBreak },
  { field: 'bcc', value: 'ann@example.com, mailto:bob@example.com', message: SEND_MESSAGES.copyInvalid },
  { field: 'reply', value: 'not-an-address', message: SEND_MESSAGES.replyToInvalid },
  { field: 'subject', value: 'Hi\r\nBcc: victim@evil.test', message: SEND_MESSAGES.lineBreak },
] as const;

/** Three days ahead, on the hour (the picker offers times on its slots). */
const later = () => new Date(Math.ceil((Date.now() + 3 * 24 * 3600 * 1000) / 3_600_000) * 3_600_000);
/** `YYYY-MM-DD hh:mm A` in the user's zone (America/New_York), as the picker sends it. */
const deliveryField = (at: Date) => {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: 'America/New_York',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hour12: true,
    })
      .formatToParts(at)
      .map((part) => [part.type, part.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute} ${parts.dayPeriod}`;
};

const sendForm = (seeded: TSeeded, changes: Record<string, unknown> = {}) => ({
  account: seeded.accountId,
  senderName: 'Acme',
  to: [seeded.listId],
  subject: 'News',
  message: '<p>Hi</p>',
  ...changes,
});

const scheduled = (seeded: TSeeded) =>
  createSend(t.platform, seeded.user.id, {
    accountId: seeded.accountId,
    fromName: 'Acme',
    fromAddress: 'news@acme.test',
    subject: 'Launch',
    html: '<p>Soon</p>',
    listIds: [seeded.listId],
    deliverAt: later(),
  });

/** Each path, given the field and value to put in it (under the path's own name for it). */
const PATHS: Record<string, (seeded: TSeeded, field: string, value: string) => Promise<LightMyRequestResponse>> = {
  'Send Email': (seeded, field, value) => seeded.agent.post('/api/email/send', sendForm(seeded, { [field]: value })),
  'Send Email, an A/B test': (seeded, field, value) =>
    seeded.agent.post(
      '/api/email/send',
      sendForm(seeded, {
        abTest: true,
        subjectB: 'Other',
        abTestPercent: 20,
        abWaitMinutes: 60,
        abMetric: 'opens',
        // The B subject is walked with the bad subjects too.
        ...(field === 'subject' ? { subjectB: value } : { [field]: value }),
      }),
    ),
  'Edit Scheduled Email (the older route)': async (seeded, field, value) => {
    const id = await scheduled(seeded);
    const names: Record<string, string> = { reply: 'reply_to' };
    return seeded.agent.post(`/api/scheduled-mails/edit/${id}`, {
      subject: 'Launch',
      message: '<p>Soon</p>',
      delivery_time: later().toISOString(),
      [names[field] ?? field]: value,
    });
  },
  'Edit Scheduled Email (the whole form)': async (seeded, field, value) => {
    const id = await scheduled(seeded);
    return seeded.agent.post(
      `/api/scheduled-mails/update/${id}`,
      sendForm(seeded, { delivery: deliveryField(later()), sendLater: true, [field]: value }),
    );
  },
};

/** Where each path names the field in its 422. */
const errorField = (path: string, field: string) =>
  path === 'Edit Scheduled Email (the older route)' && field === 'reply'
    ? 'reply_to'
    : path === 'Send Email, an A/B test' && field === 'subject'
      ? 'subjectB'
      : field;

describe('every path that creates or changes a send reads it by one rule (R42)', () => {
  it.each(Object.keys(PATHS))(
    '%s refuses the same bad copies, Reply-To and subjects with the same words',
    async (path) => {
      const seeded = await seed();
      const before = await t.platform.db
        .selectFrom('sends')
        .select(['id', 'cc', 'bcc', 'reply_to', 'subject'])
        .where('user_id', '=', seeded.user.id)
        .execute();
      for (const bad of BAD) {
        const response = await PATHS[path]!(seeded, bad.field, bad.value);
        expect(response.statusCode, `${bad.field}=${JSON.stringify(bad.value)}: ${response.body}`).toBe(422);
        expect(response.json().errors[errorField(path, bad.field)], JSON.stringify(bad.value)).toEqual([bad.message]);
      }
      // Nothing was written by the refusals (scheduled sends the walk made stay as they were).
      const after = await t.platform.db
        .selectFrom('sends')
        .select(['id', 'cc', 'bcc', 'reply_to', 'subject'])
        .where('user_id', '=', seeded.user.id)
        .where('id', 'not in', before.length > 0 ? before.map((row) => row.id) : [0])
        .execute();
      for (const row of after) expect(row).toMatchObject({ cc: '', bcc: '', reply_to: '', subject: 'Launch' });
    },
  );

  it.each(Object.keys(PATHS))(
    '%s keeps copies in their stored form, once each, and a suppressed copy gets nothing',
    async (path) => {
      const seeded = await seed();
      const copies = `"Gone" <GONE@Example.TEST>, ann@EXAMPLE.com; Ann@example.com ,  bob@bücher.example`;
      const response = await PATHS[path]!(seeded, 'cc', copies);
      expect(response.statusCode, response.body).toBe(200);
      const send = await t.platform.db
        .selectFrom('sends')
        .select(['id', 'cc', 'status'])
        .where('user_id', '=', seeded.user.id)
        .orderBy('id')
        .executeTakeFirstOrThrow();
      expect(send.cc).toBe('GONE@example.test, ann@example.com, bob@xn--bcher-kva.example');
      if (send.status !== 'queued') return;
      // Sent now: the snapshot takes the copies, the suppressed one left out.
      await queuedJobRunner(t.platform)(snapshotSendJob);
      const recipients = await t.platform.db
        .selectFrom('send_recipients')
        .select('email')
        .where('user_id', '=', seeded.user.id)
        .execute();
      const emails = recipients.map((row) => row.email.toLowerCase()).sort();
      expect(emails).not.toContain(SUPPRESSED);
      expect(emails).toEqual(expect.arrayContaining(['ann@example.com', 'bob@xn--bcher-kva.example']));
    },
  );

  it('a drip step refuses the same Reply-To, and a drip or spam-test send is checked by the engine too', async () => {
    const seeded = await seed();
    const started = await seeded.agent.put('/api/campaigns/save-campaign/1', {
      accountId: seeded.accountId,
      title: 'Drip',
      senderName: 'Acme',
    });
    const steps = await seeded.agent.put('/api/campaigns/save-campaign/3', {
      temporary: started.json().temporaryKey,
      drips: [{ subject: 'Hello', body: '<p>Hi</p>', replyTo: 'not-an-address' }],
      dailyPlan: defaultDailyPlan(),
    });
    expect(steps.statusCode).toBe(422);
    expect(Object.values(steps.json().errors).flat()).toEqual([SEND_MESSAGES.replyToInvalid]);
    // A source that hands the engine a send directly meets the same rule.
    const direct = await t.platform.db
      .transaction()
      .execute((trx) =>
        createSourcedSend(trx, t.platform, seeded.user.id, {
          source: 'drip',
          accountId: seeded.accountId,
          fromName: 'Acme',
          fromAddress: 'news@acme.test',
          subject: 'Hi\r\nBcc: victim@evil.test',
          html: '<p>Hi</p>',
          replyTo: 'not-an-address',
          recipients: [{ email: 'reader@example.com' }],
        }),
      )
      .catch((error: unknown) => error);
    expect(direct).toBeInstanceOf(ValidationError);
    expect((direct as ValidationError).errors).toEqual({
      subject: [SEND_MESSAGES.lineBreak],
      replyTo: [SEND_MESSAGES.replyToInvalid],
    });
  });

  it("the API's transactional send refuses the same Reply-To and subjects with the same words", async () => {
    const seeded = await seed();
    const created = await seeded.agent.post('/api/settings/api-keys', { name: 'Shop', scopes: ['send'] });
    expect(created.statusCode, created.body).toBe(200);
    const key = created.json().key as string;
    const { id: templateId } = await t.platform.db
      .insertInto('templates')
      .values({ user_id: seeded.user.id, name: 'Receipt', subject: 'Receipt', html: '<p>Thanks</p>' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const send = (changes: Record<string, unknown>) =>
      t.app.inject({
        method: 'POST',
        url: '/api/email/transactional',
        headers: { authorization: `Bearer ${key}` },
        payload: {
          template_id: templateId,
          account: seeded.accountId,
          senderName: 'Acme',
          to: 'buyer@example.com',
          ...changes,
        },
      });
    for (const bad of BAD.filter((entry) => entry.field === 'reply' || entry.field === 'subject')) {
      const response = await send({ [bad.field === 'reply' ? 'reply_to' : bad.field]: bad.value });
      expect(response.statusCode, response.body).toBe(422);
      expect(Object.values(response.json().errors).flat()).toEqual([bad.message]);
    }
    const sent = await send({ reply_to: 'Help@Example.COM' });
    expect(sent.statusCode, sent.body).toBe(200);
    const row = await t.platform.db
      .selectFrom('sends')
      .select('reply_to')
      .where('id', '=', sent.json().send_id)
      .executeTakeFirstOrThrow();
    expect(row.reply_to).toBe('Help@example.com');
  });

  it('Send again and the re-send by engagement refuse a row written before the rule, and send nothing', async () => {
    const seeded = await seed();
    // What the older scheduled edit route stored: copies and a Reply-To it never checked.
    const { id } = await t.platform.db
      .insertInto('sends')
      .values({
        user_id: seeded.user.id,
        account_id: seeded.accountId,
        status: 'finished',
        from_name: 'Acme',
        from_address: 'news@acme.test',
        subject: 'Old',
        html: '<p>Old</p>',
        cc: 'nobody, ann@example.com\nBcc: victim@evil.test',
        reply_to: 'not-an-address',
        list_ids: [seeded.listId],
        list_names: 'All',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const again = await seeded.agent.post('/api/history/resend', { accountId: seeded.accountId, id });
    expect(again.statusCode, again.body).toBe(422);
    expect(again.json().errors).toMatchObject({
      cc: [SEND_MESSAGES.lineBreak],
      replyTo: [SEND_MESSAGES.replyToInvalid],
    });
    const engaged = await seeded.agent.post(`/api/history/resend-engagement/${id}`, { audience: 'not-opened' });
    expect(engaged.statusCode, engaged.body).toBe(422);
    const subject = await seeded.agent.post(`/api/history/resend-engagement/${id}`, {
      audience: 'not-opened',
      subject: 'Again\r\nBcc: victim@evil.test',
    });
    expect(subject.statusCode).toBe(422);
    expect(subject.json().errors.subject).toEqual([SEND_MESSAGES.lineBreak]);
    const sends = await t.platform.db.selectFrom('sends').select('id').where('user_id', '=', seeded.user.id).execute();
    expect(sends.map((row) => row.id)).toEqual([id]);
  });
});
