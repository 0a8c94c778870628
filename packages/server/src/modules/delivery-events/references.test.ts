import { createHmac } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedUser, startTestApp, type TTestApp } from '../../../test/app';
import { findRecipientsByRefs, type TRefPurpose } from '../delivery/delivery.service';
import { refOf } from '../delivery/message';
import { clickUrl, openUrl } from '../delivery/tracking-links';

/**
 * One reference per purpose (R34): the VERP address, the Message-ID, the unsubscribe link,
 * the tracking addresses and the provider's variable each carry their own value; each opens
 * only its own door, none can be derived from another, and messages sent before references
 * (the token itself everywhere) keep working.
 */

let t: TTestApp;
beforeAll(async () => {
  t = await startTestApp({ PUBLIC_URL: 'https://sendwell.test' });
});
afterAll(async () => t?.close());

const PURPOSES: TRefPurpose[] = ['verp', 'message-id', 'unsubscribe', 'tracking', 'provider'];

/** A sent recipient of a send with one stored link. */
const sentRecipient = async () => {
  const user = await seedUser(t.platform, { planId: 3 });
  const account = await t.platform.db
    .insertInto('sending_accounts')
    .values({ user_id: user.id, name: 'SMTP', provider: 'smtp', driver: 'smtp', username: 'news@acme.test' })
    .returning('id')
    .executeTakeFirstOrThrow();
  const send = await t.platform.db
    .insertInto('sends')
    .values({
      user_id: user.id,
      account_id: account.id,
      status: 'finished',
      from_address: 'news@acme.test',
      subject: 'Hi',
      html: '<a href="https://acme.test/offer">Offer</a>',
      list_ids: [],
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const link = await t.platform.db
    .insertInto('send_links')
    .values({ send_id: send.id, url: 'https://acme.test/offer' })
    .returning('id')
    .executeTakeFirstOrThrow();
  const recipient = await t.platform.db
    .insertInto('send_recipients')
    .values({
      send_id: send.id,
      user_id: user.id,
      email: 'ann@example.org',
      token: sql<string>`replace(gen_random_uuid()::text, '-', '')`,
      status: 'sent',
      sent_at: new Date(),
    })
    .returning(['id', 'token'])
    .executeTakeFirstOrThrow();
  return { recipient, sendId: send.id, linkId: link.id };
};

const unsubscribe = (ref: string) =>
  t.app.inject({
    method: 'POST',
    url: `/api/unsubscribe/${ref}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'List-Unsubscribe=One-Click',
  });
const path = (url: string) => new URL(url).pathname;

describe('one reference per purpose (R34)', () => {
  it('finds the recipient from each reference for its own purpose only, with one index read each', async () => {
    const { recipient } = await sentRecipient();
    const refs = Object.fromEntries(PURPOSES.map((purpose) => [purpose, refOf(t.platform, purpose, recipient)]));
    expect(new Set(Object.values(refs)).size).toBe(PURPOSES.length);
    for (const purpose of PURPOSES) {
      const found = await findRecipientsByRefs(
        t.platform,
        t.platform.db,
        purpose,
        PURPOSES.map((other) => refs[other]!),
      );
      expect(
        found.map((item) => item?.id ?? null),
        `a ${purpose} lookup`,
      ).toEqual(PURPOSES.map((other) => (other === purpose ? recipient.id : null)));
    }
    // A reference with one digit changed names nobody; so does a reference of a row that does not exist.
    const verp = refs.verp!;
    const tampered = `${verp.slice(0, -1)}${verp.endsWith('0') ? '1' : '0'}`;
    const missing = refOf(t.platform, 'verp', { id: recipient.id + 1_000_000, token: recipient.token });
    expect(await findRecipientsByRefs(t.platform, t.platform.db, 'verp', [tampered, missing, 'not a ref'])).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('unsubscribes only through the unsubscribe reference: a Message-ID, VERP or tracking reference opens nothing', async () => {
    const { recipient, sendId } = await sentRecipient();
    for (const purpose of ['message-id', 'verp', 'tracking', 'provider'] as const) {
      const ref = refOf(t.platform, purpose, recipient);
      expect((await unsubscribe(ref)).statusCode, purpose).toBe(404);
      expect((await t.app.inject({ url: `/unsubscribe/${ref}` })).statusCode, purpose).toBe(404);
    }
    const unsubscribed = async () =>
      (
        await t.platform.db
          .selectFrom('sends')
          .select('unsubscribed_count')
          .where('id', '=', sendId)
          .executeTakeFirstOrThrow()
      ).unsubscribed_count;
    expect(await unsubscribed()).toBe(0);
    const ref = refOf(t.platform, 'unsubscribe', recipient);
    const page = await t.app.inject({ url: `/unsubscribe/${ref}` });
    expect(page.body).toContain(`action="/api/unsubscribe/${ref}"`);
    expect((await unsubscribe(ref)).statusCode).toBe(200);
    expect(await unsubscribed()).toBe(1);
  });

  it('counts an open and follows a click only through the tracking reference and its signature', async () => {
    const { recipient, sendId, linkId } = await sentRecipient();
    const tracking = refOf(t.platform, 'tracking', recipient);
    const click = path(clickUrl(t.platform, tracking, recipient.token, linkId));
    const open = path(openUrl(t.platform, tracking, recipient.token));
    // The same signature under another purpose's reference leads nowhere.
    const other = refOf(t.platform, 'unsubscribe', recipient);
    expect((await t.app.inject({ url: click.replace(tracking, other) })).statusCode).toBe(404);
    await t.app.inject({ url: open.replace(tracking, other) });
    const counters = () =>
      t.platform.db
        .selectFrom('sends')
        .select(['opened_count', 'clicked_count'])
        .where('id', '=', sendId)
        .executeTakeFirstOrThrow();
    expect(await counters()).toEqual({ opened_count: 0, clicked_count: 0 });
    const followed = await t.app.inject({ url: click });
    expect(followed.statusCode).toBe(302);
    expect(followed.headers.location).toBe('https://acme.test/offer');
    await t.app.inject({ url: open });
    expect(await counters()).toEqual({ opened_count: 1, clicked_count: 1 });
  });

  it('still takes the references and signatures of messages sent before one HMAC served every purpose', async () => {
    const { recipient, sendId, linkId } = await sentRecipient();
    // What those messages carried: an HMAC-SHA256 per purpose, and per tracked link.
    const key = t.platform.secrets.signingKey;
    const legacyRef = (purpose: string) =>
      `${recipient.id.toString(36)}-${createHmac('sha256', key).update(`recipient-ref:${purpose}:${recipient.token}`).digest('hex').slice(0, 20)}`;
    const legacySignature = createHmac('sha256', key)
      .update(`track:${recipient.token}:${linkId}`)
      .digest('base64url')
      .slice(0, 16);
    expect(legacyRef('tracking')).not.toBe(refOf(t.platform, 'tracking', recipient));
    for (const purpose of PURPOSES) {
      const [found] = await findRecipientsByRefs(t.platform, t.platform.db, purpose, [legacyRef(purpose)]);
      expect(found?.id, purpose).toBe(recipient.id);
    }
    const click = await t.app.inject({ url: `/api/t/c/${legacyRef('tracking')}/${linkId}/${legacySignature}` });
    expect(click.statusCode).toBe(302);
    expect((await unsubscribe(legacyRef('unsubscribe'))).statusCode).toBe(200);
    const send = await t.platform.db
      .selectFrom('sends')
      .select(['clicked_count', 'unsubscribed_count'])
      .where('id', '=', sendId)
      .executeTakeFirstOrThrow();
    expect(send).toEqual({ clicked_count: 1, unsubscribed_count: 1 });
  });

  it('still recognises a message sent before references: its token unsubscribes, tracks and names its bounce', async () => {
    const { recipient, sendId, linkId } = await sentRecipient();
    // An older message's addresses carried the token itself, signed the same way.
    const click = path(clickUrl(t.platform, recipient.token, recipient.token, linkId));
    expect((await t.app.inject({ url: click })).statusCode).toBe(302);
    for (const purpose of PURPOSES) {
      expect((await findRecipientsByRefs(t.platform, t.platform.db, purpose, [recipient.token]))[0]?.id, purpose).toBe(
        recipient.id,
      );
    }
    expect((await unsubscribe(recipient.token)).statusCode).toBe(200);
    expect(
      (
        await t.platform.db
          .selectFrom('sends')
          .select('unsubscribed_count')
          .where('id', '=', sendId)
          .executeTakeFirstOrThrow()
      ).unsubscribed_count,
    ).toBe(1);
  });
});
