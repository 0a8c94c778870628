import { usableCredit } from '@sendwell/contracts';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, seedUser, startTestApp, type TTestApp } from '../../../test/app';
import { REALTIME_CHANNEL } from '../../platform/realtime';
import { chargeCredits, getBalance, InsufficientCreditsError, refundCredits, removeCredits } from './credits.service';

let t: TTestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

/** A user whose balance is exactly `balance` (trial credits trimmed). */
const userWithBalance = async (balance: number) => {
  const user = await seedUser(t.platform);
  await t.platform.db
    .transaction()
    .execute((trx) =>
      removeCredits(trx, { userId: user.id, type: 'one-time-credit', amount: 300 - balance, reference: 'test set-up' }),
    );
  expect((await getBalance(t.platform.db, user.id)).totalCredit).toBe(balance);
  return user;
};

const entrySum = async (userId: number) => {
  const row = await t.platform.db
    .selectFrom('credit_entries')
    .select((eb) => eb.fn.sum<string>('quantity').as('sum'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return Number(row.sum);
};

describe('the credit ledger', () => {
  it('gives a new user the plan’s trial credits, as a trial entry', async () => {
    const user = await seedUser(t.platform);
    expect(await getBalance(t.platform.db, user.id)).toEqual({ totalCredit: 300, usedCredit: 0 });
    const entries = await t.platform.db
      .selectFrom('credit_entries')
      .selectAll()
      .where('user_id', '=', user.id)
      .execute();
    expect(entries).toMatchObject([{ type: 'trial', quantity: 300, reference: 'Free' }]);
  });

  it('never overdraws: 50 parallel charges against a balance that covers 10 (R21)', async () => {
    const user = await userWithBalance(10);
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, index) =>
        t.platform.db
          .transaction()
          .execute((trx) =>
            chargeCredits(trx, { userId: user.id, type: 'verify', amount: 1, reference: `list ${index}` }),
          ),
      ),
    );
    const won = results.filter((result) => result.status === 'fulfilled');
    const refused = results.filter((result) => result.status === 'rejected');
    expect(won).toHaveLength(10);
    expect(refused).toHaveLength(40);
    for (const result of refused)
      expect((result as PromiseRejectedResult).reason).toBeInstanceOf(InsufficientCreditsError);
    expect(await getBalance(t.platform.db, user.id)).toEqual({ totalCredit: 10, usedCredit: 10 });
    // What is left to spend is what the entries add up to.
    expect(await entrySum(user.id)).toBe(0);
  });

  it('refunds failed work under the same type, so used credit drops back', async () => {
    const user = await userWithBalance(100);
    await t.platform.db
      .transaction()
      .execute((trx) => chargeCredits(trx, { userId: user.id, type: 'spam-check', amount: 100, reference: 'test 1' }));
    expect(await getBalance(t.platform.db, user.id)).toEqual({ totalCredit: 100, usedCredit: 100 });
    await t.platform.db
      .transaction()
      .execute((trx) =>
        refundCredits(trx, { userId: user.id, type: 'spam-check', amount: 100, reference: 'test 1 failed' }),
      );
    expect(await getBalance(t.platform.db, user.id)).toEqual({ totalCredit: 100, usedCredit: 0 });
    expect(await entrySum(user.id)).toBe(100);
  });

  it('leaves no trace of a charge whose work rolled back', async () => {
    const user = await userWithBalance(50);
    const before = await t.platform.db
      .selectFrom('credit_entries')
      .select('id')
      .where('user_id', '=', user.id)
      .execute();
    await t.platform.db
      .transaction()
      .execute(async (trx) => {
        await chargeCredits(trx, { userId: user.id, type: 'verify', amount: 20 });
        throw new Error('the work failed to record');
      })
      .catch(() => {});
    expect(await getBalance(t.platform.db, user.id)).toEqual({ totalCredit: 50, usedCredit: 0 });
    const after = await t.platform.db
      .selectFrom('credit_entries')
      .select('id')
      .where('user_id', '=', user.id)
      .execute();
    expect(after).toEqual(before);
  });

  it('stops a removal at zero instead of failing', async () => {
    const user = await userWithBalance(40);
    await t.platform.db
      .transaction()
      .execute((trx) =>
        removeCredits(trx, { userId: user.id, type: 'mon-balance-remove', amount: 5000, reference: 'Pro ended' }),
      );
    expect((await getBalance(t.platform.db, user.id)).totalCredit).toBe(0);
    const last = await t.platform.db
      .selectFrom('credit_entries')
      .select(['type', 'quantity'])
      .where('user_id', '=', user.id)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(last).toEqual({ type: 'mon-balance-remove', quantity: -40 });
  });

  it('refuses to change an entry once written', async () => {
    const user = await seedUser(t.platform);
    await expect(
      t.platform.db.updateTable('credit_entries').set({ quantity: 1_000_000 }).where('user_id', '=', user.id).execute(),
    ).rejects.toThrow(/never changed/);
  });

  it('announces each new balance on the user’s channel, at commit', async () => {
    const user = await userWithBalance(30);
    const listener = new pg.Client({ connectionString: t.databaseUrl });
    const heard: unknown[] = [];
    await listener.connect();
    listener.on('notification', (message) => {
      const parsed = JSON.parse(message.payload!);
      if (parsed.userId === user.id) heard.push(parsed);
    });
    await listener.query(`listen ${REALTIME_CHANNEL}`);
    try {
      await t.platform.db
        .transaction()
        .execute((trx) => chargeCredits(trx, { userId: user.id, type: 'verify', amount: 5 }));
      await expect.poll(() => heard.length).toBe(1);
      expect(heard[0]).toMatchObject({
        kind: 'event',
        event: 'CreditBalanceEvent',
        payload: { totalCredit: 30, usedCredit: 5 },
      });
    } finally {
      await listener.end();
    }
  });
});

describe('GET /api/credit-log', () => {
  it('pages 15 newest first by default, filters by type and by day in the user’s time zone, and shows only the user’s own', async () => {
    const user = await seedUser(t.platform);
    const other = await seedUser(t.platform);
    // 20 one-time credits, one per day from 2026-03-01 03:00 UTC (the evening before, in New York).
    await t.platform.db
      .insertInto('credit_entries')
      .values(
        Array.from({ length: 20 }, (_, index) => ({
          user_id: user.id,
          type: 'one-time-credit',
          quantity: index + 1,
          created_at: new Date(Date.UTC(2026, 2, 1 + index, 3)),
        })),
      )
      .execute();
    const agent = createAgent(t.app);
    await agent.signIn(user.email, user.password);

    const firstPage = (await agent.get('/api/credit-log')).json();
    expect(firstPage.meta).toMatchObject({ per_page: 15, total: 21, last_page: 2 });
    expect(firstPage.data[0]).toMatchObject({ type: 'trial', quantity: 300 });
    expect(firstPage.data[1]).toMatchObject({ type: 'one-time-credit', quantity: 20 });

    const trialOnly = (await agent.get('/api/credit-log?type=trial')).json();
    expect(trialOnly.meta.total).toBe(1);

    // 2026-03-01 03:00 UTC is 2026-02-28 22:00 in New York: it belongs to Feb 28 there.
    const march1 = (await agent.get('/api/credit-log?first_date=2026-03-01&last_date=2026-03-01')).json();
    expect(march1.data.map((row: { quantity: number }) => row.quantity)).toEqual([2]);
    const feb28 = (await agent.get('/api/credit-log?first_date=2026-02-28&last_date=2026-02-28')).json();
    expect(feb28.data.map((row: { quantity: number }) => row.quantity)).toEqual([1]);

    const ascending = (await agent.get('/api/credit-log?column=quantity&order=asc&type=one-time-credit')).json();
    expect(ascending.data[0].quantity).toBe(1);

    const otherAgent = createAgent(t.app);
    await otherAgent.signIn(other.email, other.password);
    expect((await otherAgent.get('/api/credit-log')).json().meta.total).toBe(1);
  });

  it('refuses an unknown sort column, type or date', async () => {
    const user = await seedUser(t.platform);
    const agent = createAgent(t.app);
    await agent.signIn(user.email, user.password);
    expect((await agent.get('/api/credit-log?column=user_id')).statusCode).toBe(422);
    expect((await agent.get('/api/credit-log?type=free-money')).statusCode).toBe(422);
    const badDate = await agent.get('/api/credit-log?first_date=yesterday');
    expect(badDate.statusCode).toBe(422);
    expect(badDate.json().errors.first_date[0]).toBe('Dates must look like YYYY-MM-DD.');
  });
});

describe('user information', () => {
  it('carries the balance the header starts from', async () => {
    const user = await userWithBalance(120);
    const agent = createAgent(t.app);
    await agent.signIn(user.email, user.password);
    expect((await agent.get('/api/user-information')).json().data.credit).toEqual({ totalCredit: 120, usedCredit: 0 });
  });
});

describe('credit fields in the spec’s sense: total, used, usable = total − used', () => {
  it('answers the same three figures in the ledger, user information and get-credit-info', async () => {
    const user = await userWithBalance(100);
    await t.platform.db
      .transaction()
      .execute((trx) => chargeCredits(trx, { userId: user.id, type: 'verify', amount: 30, reference: 'list 1' }));
    const balance = await getBalance(t.platform.db, user.id);
    expect(balance).toEqual({ totalCredit: 100, usedCredit: 30 });
    expect(usableCredit(balance)).toBe(70);

    const agent = createAgent(t.app);
    await agent.signIn(user.email, user.password);
    expect((await agent.get('/api/user-information')).json().data.credit).toEqual({
      totalCredit: 100,
      usedCredit: 30,
    });
    expect((await agent.get('/api/ajax/get-credit-info')).json()).toMatchObject({ userCredit: 100, usedCredit: 30 });

    // A removal (a plan's monthly credits ending) lowers the total, not what was used.
    await t.platform.db
      .transaction()
      .execute((trx) => removeCredits(trx, { userId: user.id, type: 'mon-balance-remove', amount: 20 }));
    expect(await getBalance(t.platform.db, user.id)).toEqual({ totalCredit: 80, usedCredit: 30 });
  });
});

describe('GET /api/ajax/get-credit-info', () => {
  const addAccount = (userId: number, provider: 'smtp' | 'google' | 'mailgun', driver: string | null) =>
    t.platform.db
      .insertInto('sending_accounts')
      .values({ user_id: userId, name: `${provider} ${driver}`, provider, driver, mail_per_day: 500 })
      .execute();

  it('says whether the user has SMTP and Gmail accounts', async () => {
    const user = await seedUser(t.platform, { planId: 3 });
    const agent = createAgent(t.app);
    await agent.signIn(user.email, user.password);
    const kinds = async () => {
      const { isSmtp, isGmail } = (await agent.get('/api/ajax/get-credit-info')).json();
      return { isSmtp, isGmail };
    };
    expect(await kinds()).toEqual({ isSmtp: false, isGmail: false });
    await addAccount(user.id, 'mailgun', null);
    expect(await kinds()).toEqual({ isSmtp: false, isGmail: false });
    await addAccount(user.id, 'smtp', 'gmail');
    expect(await kinds()).toEqual({ isSmtp: false, isGmail: true });
    await addAccount(user.id, 'smtp', 'sendgrid');
    expect(await kinds()).toEqual({ isSmtp: true, isGmail: true });

    // Another user's accounts are not this user's.
    const other = await seedUser(t.platform, { planId: 3 });
    await addAccount(other.id, 'google', 'gmail');
    const otherAgent = createAgent(t.app);
    await otherAgent.signIn(other.email, other.password);
    expect((await otherAgent.get('/api/ajax/get-credit-info')).json()).toMatchObject({ isSmtp: false, isGmail: true });
  });
});

describe('removals racing charges', () => {
  it('stop at zero instead of failing when charges land at the same time', async () => {
    const user = await userWithBalance(20);
    const charges = Array.from({ length: 10 }, () =>
      t.platform.db.transaction().execute((trx) => chargeCredits(trx, { userId: user.id, type: 'verify', amount: 1 })),
    );
    const removals = Array.from({ length: 5 }, () =>
      t.platform.db
        .transaction()
        .execute((trx) => removeCredits(trx, { userId: user.id, type: 'mon-balance-remove', amount: 4 })),
    );
    const results = await Promise.allSettled([...charges, ...removals]);
    const removalResults = results.slice(10);
    expect(removalResults.every((result) => result.status === 'fulfilled')).toBe(true);
    const usable = usableCredit(await getBalance(t.platform.db, user.id));
    expect(usable).toBeGreaterThanOrEqual(0);
    expect(await entrySum(user.id)).toBe(usable);
  });
});
