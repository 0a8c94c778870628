import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, startTestApp, type TTestApp } from './app';

/**
 * R26: behind a proxy, the client address comes from trusted hops only. The forgot-password
 * form allows 5 requests per IP per 15 minutes; a client that could name its own address in
 * X-Forwarded-For would never reach the limit.
 */

const PROXY = '10.0.0.7';

let t: TTestApp;
beforeAll(async () => {
  t = await startTestApp({ TRUST_PROXY: `${PROXY},192.168.50.0/24` });
});
afterAll(async () => t?.close());

/** A browser's CSRF cookie and token, so the requests reach the rate limit. */
const browser = async () => {
  const agent = createAgent(t.app);
  const token = (await agent.get('/api/csrf')).json().token as string;
  const cookie = [...agent.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  return { 'x-csrf-token': token, cookie };
};

const forgotPassword = async (remoteAddress: string, forwardedFor?: string) =>
  (
    await t.app.inject({
      method: 'POST',
      url: '/api/forgot-password',
      remoteAddress,
      headers: { ...(await browser()), ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) },
      payload: { email: 'nobody@example.com' },
    })
  ).statusCode;

describe('client addresses behind a proxy (R26)', () => {
  it('ignores X-Forwarded-For from a peer that is not a listed proxy: a forged header resets no limit', async () => {
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 7; attempt++) {
      statuses.push(await forgotPassword('203.0.113.20', `198.51.100.${attempt + 1}`));
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
  });

  it('takes the client from a listed proxy’s X-Forwarded-For, and counts each client apart', async () => {
    const client = '198.51.100.77';
    const statuses: number[] = [];
    // What the client wrote itself stays on the left; the proxy appends the address it saw.
    for (let attempt = 0; attempt < 6; attempt++) {
      statuses.push(await forgotPassword(PROXY, `192.0.2.${attempt + 1}, ${client}`));
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    // Another client behind the same proxy has its own allowance.
    expect(await forgotPassword(PROXY, '198.51.100.78')).toBe(200);
    // A CIDR entry trusts every proxy in it.
    expect(await forgotPassword('192.168.50.9', client)).toBe(429);
  });

  it('believes X-Forwarded-Proto only from a listed proxy', async () => {
    const proto = async (remoteAddress: string) =>
      (
        await t.app.inject({
          url: '/api/csrf',
          remoteAddress,
          headers: { 'x-forwarded-proto': 'https' },
        })
      ).cookies as { name: string; secure?: boolean }[];
    expect((await proto(PROXY))[0]).toMatchObject({ name: '__Host-sendwell_csrf', secure: true });
    expect((await proto('203.0.113.21'))[0]).toMatchObject({ name: 'sendwell_csrf' });
  });
});
