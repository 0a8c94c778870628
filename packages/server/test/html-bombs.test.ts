import { defaultDailyPlan, MAX_HTML_DEPTH } from '@sendwell/contracts';
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchSendJob, snapshotSendJob } from '../src/modules/delivery/delivery.jobs';
import { createSend } from '../src/modules/delivery/delivery.service';
import { startTestApp, type TTestApp } from './app';
import { queuedJobRunner } from './jobs';
import { seedTestInboxSender } from './sending';
import { PATIENCE_MS, waitFor } from './wait';

/**
 * R40: pathological HTML at every entry point that takes a user's HTML. Four bombs of about
 * 2 MB (the fields' limit): elements nested 110,000 deep, a table of 50,000 rows (html-to-text
 * took 4.5 s over it), an attribute of 1.9 MB, and entities end to end. Every form refuses
 * the nested one with a 422 that says why and where, before anything parses it; the others
 * are lawful HTML and are taken, and whatever then does heavy work on them (the pre-send
 * checks, a send's composition) does it on a CPU pool thread: a `/api/health` request sent
 * while that work runs is answered before the work's own answer (order, not time). A send
 * whose message cannot be composed in the pool's time (1 s here) ends `failed` once, with
 * the reason, instead of being retried.
 */

const BOMBS = {
  nested: `${'<div>'.repeat(110_000)}deep${'</div>'.repeat(110_000)}`.slice(0, 1_900_000),
  table: `<table>${'<tr><td>a</td><td>b</td><td>c</td></tr>'.repeat(50_000)}</table>`,
  attribute: `<p title="${'a'.repeat(1_900_000)}">x</p>`,
  entities: `<p>${'&amp;&#x1F600;&lt;&nbsp;'.repeat(70_000)}</p>`,
};
type TBomb = keyof typeof BOMBS;
const LAWFUL: TBomb[] = ['table', 'attribute', 'entities'];
const NESTED_MESSAGE = new RegExp(
  `^The HTML nests its elements more than ${MAX_HTML_DEPTH} levels deep \\(from line 1\\)`,
);

let t: TTestApp;
beforeAll(async () => {
  t = await startTestApp({ PUBLIC_URL: 'https://sendwell.test', MESSAGE_WORK_TIMEOUT_SECONDS: '1' });
  // The pool's thread started and its libraries loaded before any 1 s bound is counted: on a
  // loaded machine a cold start alone can take longer (a process's first message pays it once).
  await t.platform.cpu.run('textPart', '<p>warm</p>', { timeoutMs: 120_000 });
  await t.platform.cpu.run('webHrefs', '<a href="https://x.test/">warm</a>', { timeoutMs: 120_000 });
});
afterAll(async () => t?.close());

/** A signed-in user with the test inbox as its account and a list of one member. */
const seed = () => seedTestInboxSender(t, { verified: true });
type TSeeded = Awaited<ReturnType<typeof seed>>;

const expectNestingRefused = (response: LightMyRequestResponse, field: string) => {
  expect(response.statusCode, response.body.slice(0, 300)).toBe(422);
  expect(response.json().errors[field]?.[0]).toMatch(NESTED_MESSAGE);
};

/**
 * Sends `request` and, once the CPU pool has its work in hand, a health request: which of
 * the two was answered first. The pool's work runs on its own thread, so the health answer
 * comes first; work on the event loop would hold it until the end.
 */
const answeredFirst = async (request: () => Promise<LightMyRequestResponse>) => {
  const order: string[] = [];
  const bomb = request().then((response) => {
    order.push('bomb');
    return response;
  });
  await waitFor(
    () => t.platform.cpu.inFlight() > 0 || order.length > 0,
    PATIENCE_MS,
    'the CPU pool to take the work',
    5,
  );
  const health = await t.app.inject({ method: 'GET', url: '/api/health' });
  order.push('health');
  expect(health.statusCode).toBe(200);
  return { response: await bomb, first: order[0] };
};

const sendForm = (seeded: TSeeded, message: string) => ({
  account: seeded.accountId,
  senderName: 'Acme',
  to: [seeded.listId],
  subject: 'Bomb',
  message,
});

describe('the forms refuse HTML nested past the bound, before parsing it (R40)', () => {
  it('Send Email, its pre-send check, templates and the spam test answer 422 with the line it starts on', async () => {
    const seeded = await seed();
    expectNestingRefused(await seeded.agent.post('/api/email/send', sendForm(seeded, BOMBS.nested)), 'message');
    expectNestingRefused(
      await seeded.agent.post('/api/email/pre-send-check', sendForm(seeded, BOMBS.nested)),
      'message',
    );
    expectNestingRefused(await seeded.agent.post('/api/templates', { name: 'Bomb', html: BOMBS.nested }), 'html');
    const spamForm = { account: seeded.accountId, senderName: 'Acme', subject: 'Bomb', mail_body: BOMBS.nested };
    expectNestingRefused(await seeded.agent.post('/api/tools/mail-testing/send', spamForm), 'mail_body');
    expectNestingRefused(await seeded.agent.post('/api/tools/mail-testing/pre-send-check', spamForm), 'mail_body');
    // Nothing was stored.
    const sends = await t.platform.db.selectFrom('sends').select('id').where('user_id', '=', seeded.user.id).execute();
    expect(sends).toEqual([]);
  });

  it('Edit Scheduled Email refuses it and keeps the message it had', async () => {
    const seeded = await seed();
    const later = new Date(Date.now() + 3 * 24 * 3600 * 1000);
    const id = await createSend(t.platform, seeded.user.id, {
      accountId: seeded.accountId,
      fromName: 'Acme',
      fromAddress: 'news@acme.test',
      subject: 'Launch',
      html: '<p>Soon</p>',
      listIds: [seeded.listId],
      deliverAt: later,
    });
    const edit = (message: string) =>
      seeded.agent.post(`/api/scheduled-mails/edit/${id}`, {
        subject: 'Launch',
        message,
        delivery_time: later.toISOString(),
      });
    expectNestingRefused(await edit(BOMBS.nested), 'message');
    const kept = await t.platform.db.selectFrom('sends').select('html').where('id', '=', id).executeTakeFirstOrThrow();
    expect(kept.html).toBe('<p>Soon</p>');
    for (const bomb of LAWFUL) expect((await edit(BOMBS[bomb])).statusCode, bomb).toBe(200);
  });

  it("a drip campaign's signature and its steps refuse it; lawful bombs are saved", async () => {
    const seeded = await seed();
    const start = (signature: string) =>
      seeded.agent.put('/api/campaigns/save-campaign/1', {
        accountId: seeded.accountId,
        title: 'Drip',
        senderName: 'Acme',
        signature,
      });
    // The signature's field holds 20,000 characters: its bomb is nested within that.
    expectNestingRefused(await start('<div>'.repeat(3_000)), 'signature');
    const started = await start('<p>— Acme</p>');
    expect(started.statusCode, started.body).toBe(200);
    const temporary = started.json().temporaryKey as string;
    const steps = (body: string) =>
      seeded.agent.put('/api/campaigns/save-campaign/3', {
        temporary,
        drips: [{ subject: 'Hello', body }],
        dailyPlan: defaultDailyPlan(),
      });
    const refused = await steps(BOMBS.nested);
    expect(refused.statusCode).toBe(422);
    expect(Object.values(refused.json().errors).flat()[0]).toMatch(NESTED_MESSAGE);
    for (const bomb of LAWFUL) {
      const saved = await steps(BOMBS[bomb]);
      expect(saved.statusCode, `${bomb}: ${saved.body.slice(0, 300)}`).toBe(200);
    }
  });
});

describe('lawful bombs are worked on off the event loop (R40)', () => {
  it.each(LAWFUL)('the pre-send checks of a %s bomb: /api/health is answered first', async (bomb) => {
    const seeded = await seed();
    const send = await answeredFirst(() =>
      seeded.agent.post('/api/email/pre-send-check', sendForm(seeded, BOMBS[bomb])),
    );
    expect(send.response.statusCode, send.response.body.slice(0, 300)).toBe(200);
    expect(send.first).toBe('health');
    const spam = await answeredFirst(() =>
      seeded.agent.post('/api/tools/mail-testing/pre-send-check', {
        account: seeded.accountId,
        senderName: 'Acme',
        subject: 'Bomb',
        mail_body: BOMBS[bomb],
      }),
    );
    expect(spam.response.statusCode, spam.response.body.slice(0, 300)).toBe(200);
    expect(spam.first).toBe('health');
  });

  it('a send of a table bomb: health is answered while it is composed, and the send fails once, with the reason', async () => {
    const seeded = await seed();
    const sent = await seeded.agent.post('/api/email/send', sendForm(seeded, BOMBS.table));
    expect(sent.statusCode, sent.body.slice(0, 300)).toBe(200);
    const send = await t.platform.db
      .selectFrom('sends')
      .select('id')
      .where('user_id', '=', seeded.user.id)
      .executeTakeFirstOrThrow();
    const statusOf = async () =>
      await t.platform.db
        .selectFrom('sends')
        .select(['status', 'note'])
        .where('id', '=', send.id)
        .executeTakeFirstOrThrow();
    // The jobs run here as a worker runs them; the dispatch makes the text part on a pool
    // thread, and health answers meanwhile.
    const runQueued = queuedJobRunner(t.platform);
    await runQueued(snapshotSendJob);
    let isDispatched = false;
    const dispatching = runQueued(dispatchSendJob).finally(() => {
      isDispatched = true;
    });
    await waitFor(() => t.platform.cpu.inFlight() > 0 || isDispatched, PATIENCE_MS, 'the send to be composed', 5);
    expect((await t.app.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(200);
    expect(isDispatched).toBe(false);
    expect((await statusOf()).status).toBe('sending');
    await dispatching;
    expect(await statusOf()).toEqual({
      status: 'failed',
      note: expect.stringMatching(/^This email could not be composed: Its plain-text part took longer than 1 s/),
    });
    // History shows the reason.
    const history = (await seeded.agent.get('/api/history')).json();
    expect(history.data.find((row: { id: number }) => row.id === send.id)).toMatchObject({
      state: 'failed',
      note: expect.stringContaining('could not be composed'),
    });
    // It failed once: its dispatch queued no other run of it.
    const dispatches = await sql<{ id: string }>`select id from pgboss.job
      where name = ${dispatchSendJob.name} and (data->>'sendId')::bigint = ${send.id}`.execute(t.platform.db);
    expect(dispatches.rows).toHaveLength(1);
  });

  it('a send stored before the bound with HTML nested past it fails once with the nesting reason', async () => {
    const seeded = await seed();
    // Written as it was before the bound (the engine's own check refuses it now).
    const { id } = await t.platform.db
      .insertInto('sends')
      .values({
        user_id: seeded.user.id,
        account_id: seeded.accountId,
        status: 'queued',
        from_name: 'Acme',
        from_address: 'news@acme.test',
        subject: 'Old bomb',
        html: BOMBS.nested,
        list_ids: [seeded.listId],
        list_names: 'All',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await t.platform.queue.enqueue(snapshotSendJob, { sendId: id });
    const runQueued = queuedJobRunner(t.platform);
    await runQueued(snapshotSendJob);
    await runQueued(dispatchSendJob);
    const row = await t.platform.db
      .selectFrom('sends')
      .select(['status', 'note'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('failed');
    expect(row.note).toMatch(/could not be composed: The HTML nests its elements more than 256 levels deep/);
  });
});
