import { REALTIME_CLOSE } from '@sendwell/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { notifyUser } from '../src/modules/notifications/notifications.service';
import { createDatabase } from '../src/platform/db';
import { SESSION_COOKIE } from '../src/platform/http-security';
import { publishToUser } from '../src/platform/realtime';
import { createAgent, seedUser, startTestApp, TEST_SECRET_KEY, type TTestApp } from './app';
import { startServerProcess } from './processes';
import { PATIENCE_MS } from './wait';

let t: TTestApp;
let baseUrl: string;
let host: string;

beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address() as { port: number };
  host = `127.0.0.1:${address.port}`;
  baseUrl = `ws://${host}/api/realtime`;
});
afterAll(async () => t?.close());

type TOpened = { socket: WebSocket; messages: { event: string; payload: unknown }[] };

/** Opens the channel like a browser: with the page's Origin and the session cookie. */
const openChannel = (cookie: string | undefined, origin: string | undefined): Promise<TOpened> =>
  new Promise((resolve, reject) => {
    const socket = new WebSocket(baseUrl, {
      headers: { ...(cookie ? { cookie } : {}), ...(origin ? { origin } : {}) },
    });
    const messages: TOpened['messages'] = [];
    socket.on('message', (data) => messages.push(JSON.parse(String(data))));
    socket.once('open', () => resolve({ socket, messages }));
    socket.once('unexpected-response', (_request, response) => reject(new Error(`refused ${response.statusCode}`)));
    socket.once('error', reject);
  });

const signedInCookie = async () => {
  const user = await seedUser(t.platform);
  const agent = createAgent(t.app);
  await agent.signIn(user.email, user.password);
  return { user, agent, cookie: `${SESSION_COOKIE}=${agent.cookies.get(SESSION_COOKIE)}` };
};

const waitFor = async (condition: () => boolean, timeoutMs = PATIENCE_MS) => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

const payload = (id: number) => ({ id, title: `note ${id}`, body: '', link: null, unread: 1 });

describe('private realtime channel (R13)', () => {
  it('refuses a socket without a session', async () => {
    await expect(openChannel(undefined, `http://${host}`)).rejects.toThrow('refused 401');
  });

  it('refuses a socket from a foreign Origin, even with a valid session', async () => {
    const { cookie } = await signedInCookie();
    await expect(openChannel(cookie, 'https://evil.example')).rejects.toThrow('refused 403');
    await expect(openChannel(cookie, undefined)).rejects.toThrow('refused 403');
  });

  it('delivers a user’s events to every tab of that user and to nobody else', async () => {
    const alice = await signedInCookie();
    const bob = await signedInCookie();
    const aliceTab1 = await openChannel(alice.cookie, `http://${host}`);
    const aliceTab2 = await openChannel(alice.cookie, `http://${host}`);
    const bobTab = await openChannel(bob.cookie, `http://${host}`);

    // Published through a different connection, as another process would.
    const other = createDatabase(t.databaseUrl, { poolSize: 1 });
    try {
      await publishToUser(other.db, alice.user.id, 'NotificationEvent', payload(1));
    } finally {
      await other.close();
    }
    await waitFor(() => aliceTab1.messages.length === 1 && aliceTab2.messages.length === 1);
    expect(aliceTab1.messages[0]).toEqual({ event: 'NotificationEvent', payload: payload(1) });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(bobTab.messages).toEqual([]);
    for (const tab of [aliceTab1, aliceTab2, bobTab]) tab.socket.close();
  });

  it('publishes inside a transaction only when it commits', async () => {
    const alice = await signedInCookie();
    const tab = await openChannel(alice.cookie, `http://${host}`);
    await t.platform.db
      .transaction()
      .execute(async (trx) => {
        await publishToUser(trx, alice.user.id, 'NotificationEvent', payload(2));
        throw new Error('roll back');
      })
      .catch(() => {});
    await publishToUser(t.platform.db, alice.user.id, 'NotificationEvent', payload(3));
    await waitFor(() => tab.messages.length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(tab.messages.map((message) => (message.payload as { id: number }).id)).toEqual([3]);
    tab.socket.close();
  });

  it('closes the socket when its session signs out', async () => {
    const alice = await signedInCookie();
    const tab = await openChannel(alice.cookie, `http://${host}`);
    const closed = new Promise<number>((resolve) => tab.socket.once('close', (code) => resolve(code)));
    await alice.agent.post('/api/logout');
    expect(await closed).toBe(REALTIME_CLOSE.signedOut);
  });
});

describe('events from a worker process', () => {
  it('reach the browser’s socket through the web process', async () => {
    const alice = await signedInCookie();
    const tab = await openChannel(alice.cookie, `http://${host}`);
    const worker = startServerProcess({ DATABASE_URL: t.databaseUrl, SECRET_KEY: TEST_SECRET_KEY }, [
      '--role',
      'worker',
    ]);
    try {
      await worker.waitForOutput('worker started');
      const id = await notifyUser(t.platform, { userId: alice.user.id, title: 'Import finished', body: '1,000 rows' });
      await waitFor(() => tab.messages.length === 1);
      expect(tab.messages[0]).toEqual({
        event: 'NotificationEvent',
        payload: { id, title: 'Import finished', body: '1,000 rows', link: null, unread: 1 },
      });
    } finally {
      expect(await worker.stop()).toBe(0);
      tab.socket.close();
    }
  });
});
