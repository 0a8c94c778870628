import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedUser, startTestApp, type TTestApp } from '../../../test/app';
import { releaseReservation, reserveRoom, roomFreesAt, sentInWindow } from './daily-cap';

let t: TTestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const LEASE_MS = 120_000;

const seedAccount = async () => {
  const user = await seedUser(t.platform, { planId: 3 });
  const { id } = await t.platform.db
    .insertInto('sending_accounts')
    .values({
      user_id: user.id,
      name: 'Relay',
      provider: 'smtp',
      driver: 'smtp',
      username: 'mailer',
      host: '127.0.0.1',
      port: 2525,
      encryption: 'tls',
      from_address: 'news@acme.test',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
};

const rowsOf = (accountId: number) =>
  t.platform.db
    .selectFrom('account_cap_reservations')
    .select(['id', 'counted_at', 'sent'])
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();

describe('the daily cap over a rolling 24 hours (R43)', () => {
  it('grants exactly the cap to reservations made at the same moment, and what is given back can be reserved again', async () => {
    const accountId = await seedAccount();
    const reservations = await Promise.all(
      Array.from({ length: 24 }, () => reserveRoom(t.platform, { accountId, leaseMs: LEASE_MS }, 50, 7)),
    );
    const granted = reservations.map((reservation) => reservation.granted);
    expect(granted.reduce((sum, each) => sum + each, 0)).toBe(50);
    expect(granted.filter((each) => each === 0).length).toBe(24 - Math.ceil(50 / 7));
    expect(await sentInWindow(t.platform.db, accountId)).toBe(50);

    // Two claims sent fewer than they reserved: their rest is free again, and only that.
    const [first, second] = reservations.filter((reservation) => reservation.granted === 7);
    await releaseReservation(t.platform.db, first!, 7);
    await releaseReservation(t.platform.db, second!, 3);
    expect(await sentInWindow(t.platform.db, accountId)).toBe(40);
    const again = await Promise.all(
      Array.from({ length: 6 }, () => reserveRoom(t.platform, { accountId, leaseMs: LEASE_MS }, 50, 4)),
    );
    expect(again.reduce((sum, reservation) => sum + reservation.granted, 0)).toBe(10);
  });

  it('counts a reservation from the end of its lease, then from the end of its claim; rows past the window go', async () => {
    const accountId = await seedAccount();
    const before = Date.now();
    const reservation = await reserveRoom(t.platform, { accountId, leaseMs: LEASE_MS }, 10, 4);
    const [held] = await rowsOf(accountId);
    // A worker that dies with it keeps it counted until 24 hours after its lease could end.
    expect(held!.counted_at.getTime()).toBeGreaterThanOrEqual(before + LEASE_MS);
    await releaseReservation(t.platform.db, reservation, 1);
    const [ended] = await rowsOf(accountId);
    expect(ended!.sent).toBe(3);
    expect(ended!.counted_at.getTime()).toBeLessThan(held!.counted_at.getTime());
    expect(ended!.counted_at.getTime()).toBeLessThanOrEqual(Date.now());

    await t.platform.db
      .updateTable('account_cap_reservations')
      .set({ counted_at: sql`now() - interval '24 hours'` })
      .where('account_id', '=', accountId)
      .execute();
    expect(await sentInWindow(t.platform.db, accountId)).toBe(0);
    await reserveRoom(t.platform, { accountId, leaseMs: LEASE_MS }, 10, 10);
    expect((await rowsOf(accountId)).map((row) => row.sent)).toEqual([10]);
  });

  it('names the moment the window has room: when enough of its oldest messages are 24 hours old', async () => {
    const accountId = await seedAccount();
    const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000);
    await t.platform.db
      .insertInto('account_cap_reservations')
      .values([
        { account_id: accountId, counted_at: hoursAgo(20), sent: 2 },
        { account_id: accountId, counted_at: hoursAgo(10), sent: 3 },
        { account_id: accountId, counted_at: hoursAgo(1), sent: 5 },
        // Past the window: counts for nothing.
        { account_id: accountId, counted_at: hoursAgo(25), sent: 100 },
      ])
      .execute();
    expect(await sentInWindow(t.platform.db, accountId)).toBe(10);
    const minuteAfter = (instant: Date) => {
      const at = new Date(instant.getTime() + 24 * 3_600_000);
      at.setUTCSeconds(0, 0);
      return at.getTime() + 60_000;
    };
    const rows = await rowsOf(accountId);
    // A cap of 10: room once the 2 of 20 hours ago are 24 hours old (8 are left then).
    expect((await roomFreesAt(t.platform.db, accountId, 10)).getTime()).toBe(minuteAfter(rows[0]!.counted_at));
    // A cap lowered to 6 by an operator: the 3 of 10 hours ago must go too (5 left).
    expect((await roomFreesAt(t.platform.db, accountId, 6)).getTime()).toBe(minuteAfter(rows[1]!.counted_at));
    // With room already (another send gave some back): now.
    const asked = Date.now();
    const roomAt = (await roomFreesAt(t.platform.db, accountId, 11)).getTime();
    expect(roomAt).toBeGreaterThanOrEqual(asked);
    expect(roomAt).toBeLessThanOrEqual(Date.now());
  });
});
