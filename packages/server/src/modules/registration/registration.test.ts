import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, seedUser, startTestApp, type TTestApp } from '../../../test/app';
import { multipart, registerThroughForm, solveCaptcha } from '../../../test/registration';

let t: TTestApp;
beforeAll(async () => {
  // A cheap captcha keeps the suite fast; the browser journey solves one at the default cost.
  t = await startTestApp({ CAPTCHA_COST: '20', REGISTRATION_LIMIT_PER_IP: '1000' });
});
afterAll(async () => t?.close());

let counter = 0;
const newEmail = () => `visitor${++counter}-${Date.now()}@example.com`;
const fields = (overrides: Record<string, string> = {}) => ({
  name: 'Vera Visitor',
  email: newEmail(),
  password: 'secret123',
  package_id: '2',
  ...overrides,
});

const userCount = async (email: string) =>
  Number(
    (
      await t.platform.db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<string>().as('count'))
        .where('email', '=', email)
        .executeTakeFirstOrThrow()
    ).count,
  );

describe('registration on the free plan', () => {
  it('creates the user with trial credits, signs them in and answers the spec’s fields', async () => {
    const agent = createAgent(t.app);
    const form = fields();
    const response = await registerThroughForm(agent, form);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({ status: true, route: '/', stripe_id: null });
    expect(body.user_id).toBeGreaterThan(0);

    const me = await agent.get('/api/user-information');
    expect(me.statusCode).toBe(200);
    expect(me.json().data).toMatchObject({
      email: form.email,
      name: 'Vera Visitor',
      free: true,
      plan: { id: 2 },
      credit: { totalCredit: 300, usedCredit: 0 },
    });
    const log = (await agent.get('/api/credit-log')).json();
    expect(log.data.map((entry: { type: string; quantity: number }) => [entry.type, entry.quantity])).toEqual([
      ['trial', 300],
    ]);
  });

  it('uses the free plan (id 2) when no plan is chosen, and stores the referrer', async () => {
    const agent = createAgent(t.app);
    const form = fields({ package_id: '' });
    const response = await registerThroughForm(agent, form);
    expect(response.statusCode, response.body).toBe(200);
    expect((await agent.get('/api/user-information')).json().data.plan.id).toBe(2);
  });

  it('keeps the time zone the form offers (the browser’s), the spec’s default without one, and refuses an unknown zone (issue 29)', async () => {
    const berlin = createAgent(t.app);
    expect((await registerThroughForm(berlin, fields({ time_zone: 'Europe/Berlin' }))).statusCode).toBe(200);
    expect((await berlin.get('/api/user-information')).json().data.time_zone).toBe('Europe/Berlin');

    const blank = createAgent(t.app);
    expect((await registerThroughForm(blank, fields({ time_zone: '' }))).statusCode).toBe(200);
    expect((await blank.get('/api/user-information')).json().data.time_zone).toBe('America/New_York');

    const unknown = createAgent(t.app);
    const form = fields({ time_zone: 'Mars/Olympus_Mons' });
    const refused = await registerThroughForm(unknown, form);
    expect(refused.statusCode).toBe(422);
    expect(refused.json().errors.time_zone).toEqual(['Please choose a time zone from the list.']);
    expect(await userCount(form.email)).toBe(0);
  });

  it('accepts JSON as well as multipart, and trims the password before its length check', async () => {
    const agent = createAgent(t.app);
    const altcha = await solveCaptcha(agent);
    const short = await agent.post('/api/register-with-subscribe', { ...fields(), password: '  12345  ', altcha });
    expect(short.statusCode).toBe(422);
    expect(short.json().errors.password).toEqual(['The password must be at least 6 characters.']);
  });

  it('refuses bad fields with one message per field and creates nobody', async () => {
    const agent = createAgent(t.app);
    const form = fields({ name: '', email: 'not-an-email', referred_by: 'also-not' });
    const response = await registerThroughForm(agent, form);
    expect(response.statusCode).toBe(422);
    expect(Object.keys(response.json().errors).sort()).toEqual(['email', 'name', 'referred_by']);
  });

  it('refuses an unknown plan with the spec’s message', async () => {
    const agent = createAgent(t.app);
    const response = await registerThroughForm(agent, fields({ package_id: '999' }));
    expect(response.statusCode).toBe(422);
    expect(response.json().errors.package_id).toEqual(['Please select package!']);
  });

  it('refuses a taken email, whatever its case', async () => {
    const existing = await seedUser(t.platform);
    const agent = createAgent(t.app);
    const response = await registerThroughForm(agent, fields({ email: existing.email.toUpperCase() }));
    expect(response.statusCode).toBe(422);
    expect(response.json().errors.email).toEqual(['The email has already been taken.']);
    expect(await userCount(existing.email.toUpperCase())).toBe(0);
  });

  it('lets only one of two simultaneous sign-ups with one email through', async () => {
    const email = newEmail();
    const [first, second] = await Promise.all([
      registerThroughForm(createAgent(t.app), fields({ email })),
      registerThroughForm(createAgent(t.app), fields({ email })),
    ]);
    expect([first.statusCode, second.statusCode].sort()).toEqual([200, 422]);
    expect(await userCount(email)).toBe(1);
  });

  it('refuses paid plans while Stripe is not configured', async () => {
    const response = await registerThroughForm(
      createAgent(t.app),
      fields({ package_id: '3', stripeToken: 'tok_visa' }),
    );
    expect(response.statusCode).toBe(409);
    expect(response.json().message).toMatch(/Paid plans are not available/);
  });
});

describe('the captcha', () => {
  it('is required', async () => {
    const agent = createAgent(t.app);
    const body = await multipart(fields());
    const response = await agent.post('/api/register-with-subscribe', body.payload, { headers: body.headers });
    expect(response.statusCode).toBe(422);
    expect(response.json().errors.altcha).toEqual(['Please verify the captcha!']);
  });

  it('answers one registration only: a replayed solution is refused', async () => {
    const agent = createAgent(t.app);
    const altcha = await solveCaptcha(agent);
    expect((await registerThroughForm(agent, fields({ altcha }))).statusCode).toBe(200);
    const replay = await registerThroughForm(createAgent(t.app), fields({ altcha }));
    expect(replay.statusCode).toBe(422);
    expect(replay.json().errors.altcha).toEqual(['Please verify the captcha!']);
  });

  it('refuses a solution to a challenge we did not sign, or a key that was not derived', async () => {
    const agent = createAgent(t.app);
    const solved = JSON.parse(Buffer.from(await solveCaptcha(agent), 'base64').toString());
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');

    const cheaper = {
      ...solved,
      challenge: { ...solved.challenge, parameters: { ...solved.challenge.parameters, cost: 1 } },
    };
    const guessedKey = { ...solved, solution: { ...solved.solution, derivedKey: 'ab'.repeat(32) } };
    for (const altcha of [encode(cheaper), encode(guessedKey), 'garbage', encode({})]) {
      const response = await registerThroughForm(agent, fields({ altcha }));
      expect(response.statusCode, altcha).toBe(422);
      expect(response.json().errors.altcha).toEqual(['Please verify the captcha!']);
    }
  });

  it('is spent before anything else is checked, so a taken email costs a fresh captcha too', async () => {
    const existing = await seedUser(t.platform);
    const agent = createAgent(t.app);
    const altcha = await solveCaptcha(agent);
    expect((await registerThroughForm(agent, fields({ email: existing.email, altcha }))).statusCode).toBe(422);
    const again = await registerThroughForm(agent, fields({ altcha }));
    expect(again.json().errors.altcha).toEqual(['Please verify the captcha!']);
  });
});

describe('registration limits (R20)', () => {
  it('rate limits registrations per IP', async () => {
    const limited = await startTestApp({ CAPTCHA_COST: '20', REGISTRATION_LIMIT_PER_IP: '2' });
    try {
      const statuses: number[] = [];
      for (let attempt = 0; attempt < 3; attempt++) {
        statuses.push((await registerThroughForm(createAgent(limited.app), { ...fields(), name: '' })).statusCode);
      }
      expect(statuses).toEqual([422, 422, 429]);
    } finally {
      await limited.close();
    }
  });
});
