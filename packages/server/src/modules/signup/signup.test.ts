import { SIGNUP_LIMITS } from '@sendwell/contracts';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAgent,
  seedTestInboxAccount,
  seedUser,
  startTestApp,
  type TAgent,
  type TTestApp,
} from '../../../test/app';
import { solveCaptcha } from '../../../test/registration';
import { dispatch, snapshotSend } from '../delivery/delivery.jobs';
import { createSend } from '../delivery/delivery.service';
import { cleanUpExpiredSignups } from '../lists/subscriptions.service';

let t: TTestApp;
beforeAll(async () => {
  // A cheap captcha: these tests solve dozens of them.
  t = await startTestApp({ CAPTCHA_COST: '20', PUBLIC_URL: 'https://sendwell.test' });
}, 60_000);
afterAll(async () => t?.close());

type TSeeded = { userId: number; agent: TAgent; accountId: number; listId: number; formKey: string };

/** A user with the test inbox as its account and one list (double opt-in unless told). */
const seed = async ({ doubleOptIn = true, consentText = 'I agree to receive the monthly news.' } = {}) => {
  const user = await seedUser(t.platform);
  const agent = createAgent(t.app);
  await agent.signIn(user.email, user.password);
  const accountId = await seedTestInboxAccount(t.platform, user.id, 'news@acme.test');
  const created = await agent.post('/api/mailing-lists', { accountId, alias: 'news', name: 'Acme News' });
  expect(created.statusCode, created.body).toBe(200);
  const listId = created.json().data.id as number;
  const saved = await agent.post(`/api/mailing-lists/${listId}/signup-form`, {
    double_opt_in: doubleOptIn,
    form_fields: { first_name: 'required', last_name: 'optional', custom: [{ key: 'city', label: 'City' }] },
    consent_text: consentText,
  });
  expect(saved.statusCode, saved.body).toBe(200);
  const formKey = new URL(saved.json().data.form_url).pathname.split('/').pop()!;
  return { userId: user.id, agent, accountId, listId, formKey } satisfies TSeeded;
};

/** A visitor's post, as a browser sends a plain HTML form (another site's, unless `form: hosted`). */
const post = (formKey: string, fields: Record<string, string>, { ip = '203.0.113.7', referer = '' } = {}) =>
  t.app.inject({
    method: 'POST',
    url: `/api/subscribe/${formKey}`,
    remoteAddress: ip,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(referer ? { referer } : {}),
    },
    payload: new URLSearchParams(fields).toString(),
  });

/** A signup that passes the captcha (solved as the widget does). */
const signUp = async (formKey: string, fields: Record<string, string>, options?: Parameters<typeof post>[2]) =>
  post(formKey, { ...fields, altcha: await solveCaptcha(createAgent(t.app)) }, options);

const membersOf = (listId: number) =>
  t.platform.db
    .selectFrom('list_members')
    .select(['id', 'email', 'fullname', 'fields', 'subscribed', 'unconfirmed'])
    .where('list_id', '=', listId)
    .orderBy('id')
    .execute();

const consentsOf = (memberId: number) =>
  t.platform.db
    .selectFrom('member_consents')
    .select([
      'id',
      'source',
      'source_detail',
      sql<string>`host(ip)`.as('ip'),
      'consent_text',
      'confirmation_send_id',
      'confirmations_sent',
      'confirmed_at',
      sql<string>`host(confirmed_ip)`.as('confirmed_ip'),
    ])
    .where('member_id', '=', memberId)
    .orderBy('id')
    .execute();

const confirmationSends = (userId: number) =>
  t.platform.db
    .selectFrom('sends')
    .select(['id'])
    .where('user_id', '=', userId)
    .where('source', '=', 'confirmation')
    .orderBy('id')
    .execute();

/** Sends a send through the engine to the test inbox and answers the newest message the inbox kept for `to`. */
const deliver = async (userId: number, sendId: number, to: string) => {
  await snapshotSend(t.platform, sendId);
  await dispatch(t.platform, sendId);
  return t.platform.db
    .selectFrom('test_inbox_messages')
    .select(['subject', 'html_body', 'text_body', 'mail_from'])
    .where('user_id', '=', userId)
    .where(sql<boolean>`${to} = any(rcpt_to)`)
    .orderBy('id', 'desc')
    .executeTakeFirst();
};

const confirmPathIn = (html: string) => {
  const match = /https:\/\/sendwell\.test(\/subscribe\/confirm\/[A-Za-z0-9_-]+)/.exec(html);
  if (!match) throw new Error(`no confirmation link in ${html}`);
  return match[1]!;
};

describe('the hosted signup page', () => {
  it('shows the list’s fields, the captcha and the honeypot without a session; an unknown form is a 404', async () => {
    const seeded = await seed();
    const page = await t.app.inject({ url: `/subscribe/${seeded.formKey}` });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).toContain('Subscribe to Acme News');
    expect(page.body).toMatch(/<input id="f-email" name="email" type="email"[^>]* required/);
    expect(page.body).toMatch(/<input id="f-first_name"[^>]* required/);
    expect(page.body).toContain('name="city"');
    expect(page.body).toContain('<altcha-widget challenge="/api/captcha/challenge" name="altcha"');
    expect(page.body).toContain('name="website" type="text" tabindex="-1"');
    expect(page.body).toContain('I agree to receive the monthly news.');
    expect(page.body).toContain(`action="/api/subscribe/${seeded.formKey}"`);
    expect((await t.app.inject({ url: '/subscribe/0123456789abcdef0123456789abcdef' })).statusCode).toBe(404);
    expect((await t.app.inject({ url: '/subscribe/not-a-key' })).statusCode).toBe(404);
    const script = await t.app.inject({ url: '/subscribe/altcha.js' });
    expect(script.statusCode).toBe(200);
    expect(script.body).toContain('customElements.define("altcha-widget"');
  });

  it('shows what a user typed (the list’s name and description, the words to agree to) as text, never as markup (R15)', async () => {
    const seeded = await seed({ consentText: 'I agree <img src=x onerror=alert(2)>' });
    await seeded.agent.post(`/api/mailing-lists/update/list/${seeded.listId}`, {
      alias: 'news',
      name: 'News <script>alert(1)</script>',
      description: '"><svg onload=alert(3)>',
    });
    const page = await t.app.inject({ url: `/subscribe/${seeded.formKey}` });
    expect(page.body).not.toMatch(/<script>alert|<img src=x|<svg onload/);
    expect(page.body).toContain('News &#60;script&#62;alert(1)&#60;/script&#62;');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    const settings = (await seeded.agent.get(`/api/mailing-lists/${seeded.listId}/signup-form`)).json().data;
    expect(settings.embed_html).not.toMatch(/<script>alert|<img src=x/);
  });

  it('offers a plain HTML snippet posting to the public address, with the same fields and no script', async () => {
    const seeded = await seed();
    const settings = (await seeded.agent.get(`/api/mailing-lists/${seeded.listId}/signup-form`)).json().data;
    expect(settings.form_url).toBe(`https://sendwell.test/subscribe/${seeded.formKey}`);
    expect(settings.embed_html).toContain(
      `<form method="post" action="https://sendwell.test/api/subscribe/${seeded.formKey}"`,
    );
    expect(settings.embed_html).toContain('name="first_name"');
    expect(settings.embed_html).toContain('name="city"');
    expect(settings.embed_html).toContain('name="website"');
    expect(settings.embed_html).not.toContain('<script');
    // Another user's list: 404, nothing of it.
    const other = await seed();
    const foreign = await other.agent.get(`/api/mailing-lists/${seeded.listId}/signup-form`);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.body).not.toContain(seeded.formKey);
  });
});

describe('double opt-in (R47)', () => {
  it('takes an embedded form’s post through the captcha step, mails the confirmation, and subscribes on the button', async () => {
    const seeded = await seed();
    const fields = { email: 'Ada@Example.org', first_name: 'Ada', last_name: 'Lovelace', city: 'London' };
    // The plain form of another site: no captcha yet, so the form comes back with the widget, filled in.
    const step = await post(seeded.formKey, fields, { referer: 'https://blog.example.net/join?utm=x' });
    expect(step.statusCode).toBe(200);
    expect(step.body).toContain('One more step');
    expect(step.body).toContain('value="Ada@Example.org"');
    expect(step.body).toContain('value="https://blog.example.net/join"');
    expect(await membersOf(seeded.listId)).toEqual([]);

    const done = await signUp(seeded.formKey, { ...fields, form: 'embedded', page: 'https://blog.example.net/join' });
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe(`/subscribe/${seeded.formKey}/thanks`);
    const thanks = await t.app.inject({ url: done.headers.location as string });
    expect(thanks.body).toContain('check your inbox');

    const [member] = await membersOf(seeded.listId);
    expect(member).toMatchObject({
      email: 'Ada@example.org',
      fullname: 'Ada Lovelace',
      fields: { first_name: 'Ada', last_name: 'Lovelace', city: 'London' },
      subscribed: false,
      unconfirmed: true,
    });
    const [consent] = await consentsOf(member!.id);
    expect(consent).toMatchObject({
      source: 'form',
      source_detail: 'embedded form on https://blog.example.net/join',
      ip: '203.0.113.7',
      consent_text: 'I agree to receive the monthly news.',
      confirmed_at: null,
    });

    // The confirmation goes from the list's address through its account, untracked, with the link.
    const message = await deliver(seeded.userId, consent!.confirmation_send_id!, 'Ada@example.org');
    expect(message?.subject).toBe('Please confirm your subscription to Acme News');
    expect(message?.mail_from).toBe('news@acme.test');
    const link = confirmPathIn(message!.html_body!);
    expect(message!.html_body).not.toContain('/api/t/c/');

    // Opening the link changes nothing until the button is pressed.
    const landing = await t.app.inject({ url: link });
    expect(landing.statusCode).toBe(200);
    expect(landing.body).toContain('Yes, subscribe me');
    expect((await membersOf(seeded.listId))[0]!.unconfirmed).toBe(true);

    const confirmed = await t.app.inject({ method: 'POST', url: `/api${link}`, remoteAddress: '198.51.100.4' });
    expect(confirmed.statusCode).toBe(200);
    expect(confirmed.body).toContain('is confirmed');
    expect((await membersOf(seeded.listId))[0]).toMatchObject({ subscribed: true, unconfirmed: false });
    const [after] = await consentsOf(member!.id);
    expect(after!.confirmed_at).toBeInstanceOf(Date);
    expect(after!.confirmed_ip).toBe('198.51.100.4');

    // The member screen shows the consent record.
    const shown = await seeded.agent.get(`/api/mailing-lists/get-member-consent/${member!.id}`);
    expect(shown.json().data).toEqual([
      expect.objectContaining({
        source: 'form',
        detail: 'embedded form on https://blog.example.net/join',
        ip: '203.0.113.7',
        consent_text: 'I agree to receive the monthly news.',
        confirmed_ip: '198.51.100.4',
      }),
    ]);
    // The link again: already confirmed, nothing else happens.
    expect((await t.app.inject({ url: link })).body).toContain('is confirmed');
  });

  it('sends an unconfirmed member nothing but the confirmation: every audience leaves it out', async () => {
    const seeded = await seed();
    await t.platform.db
      .insertInto('list_members')
      .values({
        user_id: seeded.userId,
        list_id: seeded.listId,
        account_id: seeded.accountId,
        email: 'known@example.org',
        fullname: 'Known',
      })
      .execute();
    expect((await signUp(seeded.formKey, { email: 'pending@example.org', first_name: 'Pat' })).statusCode).toBe(303);
    // The list's counters and the Send Email page's count: one subscriber.
    const info = (await seeded.agent.get(`/api/mailing-lists/get-list-info/${seeded.listId}`)).json().data;
    expect(info).toMatchObject({ members_count: 2, subscribed: 1 });
    const sendId = await createSend(t.platform, seeded.userId, {
      accountId: seeded.accountId,
      fromName: 'Acme',
      fromAddress: 'news@acme.test',
      subject: 'November news',
      html: '<p>Hello</p>',
      listIds: [seeded.listId],
    });
    await snapshotSend(t.platform, sendId);
    const recipients = await t.platform.db
      .selectFrom('send_recipients')
      .select('email')
      .where('send_id', '=', sendId)
      .execute();
    expect(recipients.map((row) => row.email)).toEqual(['known@example.org']);
    // The user cannot subscribe it on the person's behalf; a name change leaves it waiting.
    const [, pending] = await membersOf(seeded.listId);
    const forced = await seeded.agent.post(`/api/mailing-lists/update/member/${pending!.id}`, {
      fullname: 'Pat',
      subscribe: 1,
    });
    expect(forced.statusCode).toBe(409);
    const renamed = await seeded.agent.post(`/api/mailing-lists/update/member/${pending!.id}`, {
      fullname: 'Pat Smith',
      subscribe: 0,
    });
    expect(renamed.statusCode).toBe(200);
    expect((await membersOf(seeded.listId))[1]).toMatchObject({ fullname: 'Pat Smith', unconfirmed: true });
  });

  it('re-sends on a second signup instead of adding the address twice, not sooner than the cool-down', async () => {
    const seeded = await seed();
    expect((await signUp(seeded.formKey, { email: 'twice@example.org', first_name: 'Tw' })).statusCode).toBe(303);
    // Again at once: the same member, no second email (nobody's inbox can be flooded through a form).
    expect((await signUp(seeded.formKey, { email: 'TWICE@example.org', first_name: 'Other' })).statusCode).toBe(303);
    let members = await membersOf(seeded.listId);
    expect(members).toHaveLength(1);
    expect(members[0]!.fullname).toBe('Tw');
    expect(await confirmationSends(seeded.userId)).toHaveLength(1);
    const [first] = await consentsOf(members[0]!.id);
    const firstLink = confirmPathIn(
      (await deliver(seeded.userId, first!.confirmation_send_id!, 'twice@example.org'))!.html_body!,
    );

    // After the cool-down: a new email with a new link; the old link opens nothing.
    await t.platform.db
      .updateTable('member_consents')
      .set({ confirmation_sent_at: sql`now() - interval '11 minutes'` })
      .where('member_id', '=', members[0]!.id)
      .execute();
    expect((await signUp(seeded.formKey, { email: 'twice@example.org', first_name: 'Tw' })).statusCode).toBe(303);
    members = await membersOf(seeded.listId);
    expect(members).toHaveLength(1);
    const sends = await confirmationSends(seeded.userId);
    expect(sends).toHaveLength(2);
    const consents = await consentsOf(members[0]!.id);
    expect(consents).toHaveLength(1);
    expect(consents[0]!.confirmations_sent).toBe(2);
    const secondLink = confirmPathIn((await deliver(seeded.userId, sends[1]!.id, 'twice@example.org'))!.html_body!);
    expect(secondLink).not.toBe(firstLink);
    expect((await t.app.inject({ method: 'POST', url: `/api${firstLink}` })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'POST', url: `/api${secondLink}` })).statusCode).toBe(200);
    // Subscribed now: a third signup sends nothing and says nothing different.
    const third = await signUp(seeded.formKey, { email: 'twice@example.org', first_name: 'Tw' });
    expect(third.statusCode).toBe(303);
    expect(await confirmationSends(seeded.userId)).toHaveLength(2);
  });

  it('lets a confirmation link expire: the page says so and the button subscribes nobody', async () => {
    const seeded = await seed();
    await signUp(seeded.formKey, { email: 'late@example.org', first_name: 'Late' });
    const [member] = await membersOf(seeded.listId);
    const [consent] = await consentsOf(member!.id);
    const link = confirmPathIn(
      (await deliver(seeded.userId, consent!.confirmation_send_id!, 'late@example.org'))!.html_body!,
    );
    await t.platform.db
      .updateTable('member_consents')
      .set({ confirm_expires_at: sql`now() - interval '1 second'` })
      .where('id', '=', consent!.id)
      .execute();
    const page = await t.app.inject({ url: link });
    expect(page.statusCode).toBe(410);
    expect(page.body).toContain('This link has expired');
    expect(page.body).toContain(`href="/subscribe/${seeded.formKey}"`);
    expect((await t.app.inject({ method: 'POST', url: `/api${link}` })).statusCode).toBe(410);
    expect((await membersOf(seeded.listId))[0]).toMatchObject({ subscribed: false, unconfirmed: true });
    // A link of no signup at all, and a malformed one.
    expect((await t.app.inject({ url: `/subscribe/confirm/${'A'.repeat(43)}` })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'POST', url: '/api/subscribe/confirm/x' })).statusCode).toBe(404);
  });

  it('cancels a signup from the confirmation email’s unsubscribe link: its confirmation link opens nothing', async () => {
    const seeded = await seed();
    await signUp(seeded.formKey, { email: 'nope@example.org', first_name: 'No' });
    const [member] = await membersOf(seeded.listId);
    const [consent] = await consentsOf(member!.id);
    const html = (await deliver(seeded.userId, consent!.confirmation_send_id!, 'nope@example.org'))!.html_body!;
    const unsubscribe = /\/unsubscribe\/([0-9a-z]+-[0-9a-f]+)/.exec(html)![1];
    expect((await t.app.inject({ method: 'POST', url: `/api/unsubscribe/${unsubscribe}` })).statusCode).toBe(200);
    expect((await membersOf(seeded.listId))[0]).toMatchObject({ subscribed: false, unconfirmed: false });
    expect((await t.app.inject({ method: 'POST', url: `/api${confirmPathIn(html)}` })).statusCode).toBe(404);
  });

  it('forgets signups never confirmed a month after their link expired, and keeps the rest', async () => {
    const seeded = await seed();
    for (const email of ['old@example.org', 'recent@example.org', 'done@example.org']) {
      await signUp(seeded.formKey, { email, first_name: 'N' });
    }
    const [old, recent, done] = await membersOf(seeded.listId);
    await t.platform.db
      .updateTable('member_consents')
      .set({ confirm_expires_at: sql`now() - interval '31 days'` })
      .where('member_id', 'in', [old!.id, done!.id])
      .execute();
    await t.platform.db
      .updateTable('member_consents')
      .set({ confirm_expires_at: sql`now() - interval '29 days'` })
      .where('member_id', '=', recent!.id)
      .execute();
    // Confirmed before it expired: a member like any other.
    await t.platform.db
      .updateTable('list_members')
      .set({ subscribed: true, unconfirmed: false })
      .where('id', '=', done!.id)
      .execute();
    const cleaned = await cleanUpExpiredSignups(t.platform);
    expect(cleaned.expiredSignups).toBeGreaterThanOrEqual(1);
    expect((await membersOf(seeded.listId)).map((member) => member.email)).toEqual([
      'recent@example.org',
      'done@example.org',
    ]);
    expect(await consentsOf(old!.id)).toEqual([]);
  });

  it('subscribes at once on a single opt-in list, with the consent record and no email', async () => {
    const seeded = await seed({ doubleOptIn: false });
    const done = await signUp(seeded.formKey, { email: 'now@example.org', first_name: 'Now', form: 'hosted' });
    expect(done.statusCode).toBe(303);
    const [member] = await membersOf(seeded.listId);
    expect(member).toMatchObject({ subscribed: true, unconfirmed: false });
    expect(await consentsOf(member!.id)).toEqual([
      expect.objectContaining({ source: 'form', source_detail: 'hosted form', confirmation_send_id: null }),
    ]);
    expect(await confirmationSends(seeded.userId)).toEqual([]);
    expect((await t.app.inject({ url: done.headers.location as string })).body).toContain('You are subscribed');
  });
});

describe('refusals', () => {
  it('refuses a missing or wrong field, a forged or reused captcha, and ignores a filled honeypot, storing nothing', async () => {
    const seeded = await seed();
    const invalid = await signUp(seeded.formKey, { email: 'not-an-address', first_name: '' });
    expect(invalid.statusCode).toBe(422);
    expect(invalid.body).toMatch(/id="f-email"[^>]*aria-invalid="true"/);
    expect(invalid.body).toContain('Please enter your first name.');

    const forged = await post(seeded.formKey, {
      email: 'bot@example.org',
      first_name: 'Bot',
      altcha: Buffer.from('{"challenge":{"parameters":{"nonce":"x"}},"solution":{}}').toString('base64'),
    });
    expect(forged.statusCode).toBe(422);
    expect(forged.body).toContain('did not pass');

    const altcha = await solveCaptcha(createAgent(t.app));
    expect((await post(seeded.formKey, { email: 'once@example.org', first_name: 'O', altcha })).statusCode).toBe(303);
    const replayed = await post(seeded.formKey, { email: 'replay@example.org', first_name: 'R', altcha });
    expect(replayed.statusCode).toBe(422);

    const honeypot = await signUp(seeded.formKey, {
      email: 'robot@example.org',
      first_name: 'Robot',
      website: 'https://spam.example',
    });
    expect(honeypot.statusCode).toBe(303);
    expect((await membersOf(seeded.listId)).map((member) => member.email)).toEqual(['once@example.org']);
    expect(await confirmationSends(seeded.userId)).toHaveLength(1);
  });

  it(`limits signups to ${SIGNUP_LIMITS.perIpPerHour} an hour per client address, and per list`, async () => {
    const seeded = await seed();
    const statuses: number[] = [];
    for (let index = 0; index <= SIGNUP_LIMITS.perIpPerHour; index++) {
      const answer = await signUp(
        seeded.formKey,
        { email: `ip${index}@example.org`, first_name: 'N' },
        { ip: '192.0.2.50' },
      );
      statuses.push(answer.statusCode);
    }
    expect(statuses.filter((status) => status === 303)).toHaveLength(SIGNUP_LIMITS.perIpPerHour);
    expect(statuses.at(-1)).toBe(429);
    // Another client still gets through, until the list's own hour is full.
    expect(
      (await signUp(seeded.formKey, { email: 'other@example.org', first_name: 'N' }, { ip: '192.0.2.51' })).statusCode,
    ).toBe(303);
    await sql`update rate_limit_buckets set hits = ${SIGNUP_LIMITS.perListPerHour}
               where key = ${`signup:list:${seeded.listId}`}`.execute(t.platform.db);
    const full = await signUp(seeded.formKey, { email: 'full@example.org', first_name: 'N' }, { ip: '192.0.2.52' });
    expect(full.statusCode).toBe(429);
    expect(full.body).toContain('Too many signups');
    expect((await membersOf(seeded.listId)).map((member) => member.email)).not.toContain('full@example.org');
    // A robot without the captcha's proof counts against nobody's list.
    const before = await sql<{
      hits: number;
    }>`select hits from rate_limit_buckets where key = ${`signup:list:${seeded.listId}`}`.execute(t.platform.db);
    await post(seeded.formKey, { email: 'x@example.org', first_name: 'X', altcha: 'bogus' }, { ip: '192.0.2.53' });
    const after = await sql<{
      hits: number;
    }>`select hits from rate_limit_buckets where key = ${`signup:list:${seeded.listId}`}`.execute(t.platform.db);
    expect(after.rows[0]!.hits).toBe(before.rows[0]!.hits);
  });
});

describe('consent in the list’s export', () => {
  it('exports each member with its consent: a signup’s words and confirmation, a hand-added member, an import', async () => {
    const seeded = await seed();
    await signUp(
      seeded.formKey,
      { email: 'form@example.org', first_name: 'Form', form: 'hosted' },
      { ip: '203.0.113.9' },
    );
    const [formMember] = await membersOf(seeded.listId);
    const [consent] = await consentsOf(formMember!.id);
    const link = confirmPathIn(
      (await deliver(seeded.userId, consent!.confirmation_send_id!, 'form@example.org'))!.html_body!,
    );
    await t.app.inject({ method: 'POST', url: `/api${link}`, remoteAddress: '203.0.113.10' });
    await seeded.agent.post('/api/mailing-lists/add-member', { listId: seeded.listId, email: 'hand@example.org' });
    const csv = await seeded.agent.post('/api/mailing-lists/ajax/post-csv', {
      data: [{ email: 'file@example.org', name: 'File' }],
      account: seeded.accountId,
      address: 'news@acme.test',
    });
    expect(csv.statusCode, csv.body).toBe(200);

    const exported = await seeded.agent.get(`/api/mailing-lists/${seeded.listId}/export`);
    expect(exported.statusCode).toBe(200);
    expect(exported.headers['content-type']).toContain('text/csv');
    const lines = exported.body
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\n');
    expect(lines[0]).toBe(
      'Email,Name,Status,Verified,Fields,Added,Consent source,Consent detail,Agreed at,Consent IP,Consent text,Confirmed at,Confirmed from IP',
    );
    const row = (email: string) => lines.find((line) => line.startsWith(email))!.split(',');
    expect(row('form@example.org')).toEqual(
      expect.arrayContaining([
        'subscribed',
        'form',
        'hosted form',
        '203.0.113.9',
        'I agree to receive the monthly news.',
        '203.0.113.10',
      ]),
    );
    expect(row('hand@example.org')).toEqual(expect.arrayContaining(['subscribed', 'manual', 'added by hand']));
    expect(row('file@example.org')).toEqual(expect.arrayContaining(['import', 'rows uploaded from a small file']));
  });
});

describe('the preferences page of every email', () => {
  it('lists the sender’s lists the person is on, leaves one or all, and renames them', async () => {
    const seeded = await seed({ doubleOptIn: false });
    const second = await seeded.agent.post('/api/mailing-lists', {
      accountId: seeded.accountId,
      alias: 'offers',
      name: 'Acme Offers',
    });
    const secondId = second.json().data.id as number;
    for (const listId of [seeded.listId, secondId]) {
      await seeded.agent.post('/api/mailing-lists/add-member', { listId, email: 'reader@example.org', fullname: 'R' });
    }
    const sendId = await createSend(t.platform, seeded.userId, {
      accountId: seeded.accountId,
      fromName: 'Acme',
      fromAddress: 'news@acme.test',
      subject: 'News',
      html: '<p>Hello</p>',
      listIds: [seeded.listId],
    });
    const message = await deliver(seeded.userId, sendId, 'reader@example.org');
    const link = /https:\/\/sendwell\.test(\/preferences\/[0-9a-z]+-[0-9a-f]+)/.exec(message!.html_body!)?.[1];
    expect(link).toBeDefined();
    expect(message!.text_body).toContain(`Manage your subscriptions: https://sendwell.test${link}`);
    // Its own reference: the unsubscribe link's value does not open it (R34).
    const unsubscribeRef = /\/unsubscribe\/([0-9a-z]+-[0-9a-f]+)/.exec(message!.html_body!)![1];
    expect(link).not.toContain(unsubscribeRef);
    expect((await t.app.inject({ url: `/preferences/${unsubscribeRef}` })).statusCode).toBe(404);

    const page = await t.app.inject({ url: link! });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('reader@example.org');
    expect(page.body).toContain('Acme News');
    expect(page.body).toContain('Acme Offers');

    const form = (fields: Record<string, string>) =>
      t.app.inject({
        method: 'POST',
        url: `/api${link}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams(fields).toString(),
      });
    const left = await form({ action: 'leave', list: String(secondId) });
    expect(left.statusCode).toBe(303);
    expect(left.headers.location).toBe(`${link}?done=leave`);
    const state = () =>
      t.platform.db
        .selectFrom('list_members')
        .select(['list_id', 'subscribed', 'fullname'])
        .where('email', '=', 'reader@example.org')
        .orderBy('list_id')
        .execute();
    expect(await state()).toEqual([
      { list_id: seeded.listId, subscribed: true, fullname: 'R' },
      { list_id: secondId, subscribed: false, fullname: 'R' },
    ]);
    expect((await t.app.inject({ url: left.headers.location as string })).body).toContain(
      'You are unsubscribed from that list.',
    );
    await form({ action: 'rename', name: 'Reader Person' });
    expect((await state()).map((row) => row.fullname)).toEqual(['Reader Person', 'Reader Person']);
    // A list of another user or not the person's: nothing changes.
    expect((await form({ action: 'leave', list: '999999999' })).statusCode).toBe(404);
    await form({ action: 'leave-all' });
    expect((await state()).map((row) => row.subscribed)).toEqual([false, false]);
    const send = await t.platform.db
      .selectFrom('sends')
      .select('unsubscribed_count')
      .where('id', '=', sendId)
      .executeTakeFirstOrThrow();
    expect(send.unsubscribed_count).toBe(1);
    expect((await t.app.inject({ url: '/preferences/zz-0000000000' })).statusCode).toBe(404);
  });
});
