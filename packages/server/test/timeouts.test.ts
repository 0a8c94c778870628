import net from 'node:net';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createAgent, seedUser, startTestApp } from './app';
import { rawRequest } from './raw-http';
import { PATIENCE_MS } from './wait';

/**
 * The platform half of R25: a slow client costs a socket for a bounded time, and a request
 * that cannot get a database connection hears so instead of waiting forever. (That the list
 * import holds no connection while a client uploads is the import's own test.)
 */

const within = <T>(promise: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([
    promise,
    new Promise<T>((_resolve, reject) => setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms)),
  ]);

describe('database connections (R25)', () => {
  it('answers 503 with a clear message when no connection frees up in time, and serves again after', async () => {
    const t = await startTestApp({ DB_POOL_SIZE: '1', DB_ACQUIRE_TIMEOUT_SECONDS: '0.5' });
    try {
      const user = await seedUser(t.platform);
      const agent = createAgent(t.app);
      await agent.signIn(user.email, user.password);
      const held = await t.platform.pool.connect();
      try {
        // The connection stays held until this answers: only the acquire timeout can end the wait.
        const response = await within(agent.get('/api/user-information'), PATIENCE_MS, 'user-information');
        expect(response.statusCode).toBe(503);
        expect(response.json()).toEqual({
          status: false,
          message: 'Sendwell is busy right now. Please try again in a moment.',
          code: 'BUSY',
        });
        expect(response.headers['retry-after']).toBe('5');
      } finally {
        held.release();
      }
      expect((await agent.get('/api/user-information')).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('has PostgreSQL end a transaction left idle, so it cannot hold its connection and locks', async () => {
    const t = await startTestApp({ DB_IDLE_IN_TRANSACTION_TIMEOUT_SECONDS: '1' });
    try {
      const { rows } = await sql<{ value: string }>`
        select current_setting('idle_in_transaction_session_timeout') as value
      `.execute(t.platform.db);
      expect(rows[0]!.value).toBe('1s');
      const abandoned = t.platform.db.transaction().execute(async (trx) => {
        await sql`select 1`.execute(trx);
        // Idle three times the limit: PostgreSQL's own timer, on a busy machine, has had its chance.
        await new Promise((resolve) => setTimeout(resolve, 3_000));
        await sql`select 1`.execute(trx);
      });
      await expect(abandoned).rejects.toThrow();
      // The pool replaces the ended connection; the next caller is served.
      const after = await sql<{ one: number }>`select 1 as one`.execute(t.platform.db);
      expect(after.rows[0]!.one).toBe(1);
    } finally {
      await t.close();
    }
  });

  it('sets a minute by default', async () => {
    const t = await startTestApp();
    try {
      const { rows } = await sql<{ value: string }>`
        select current_setting('idle_in_transaction_session_timeout') as value
      `.execute(t.platform.db);
      expect(rows[0]!.value).toBe('1min');
    } finally {
      await t.close();
    }
  });
});

describe('slow HTTP clients (R25)', () => {
  it('closes a connection whose headers do not arrive in time, but lets a slow body through', async () => {
    const t = await startTestApp({ HTTP_HEADERS_TIMEOUT_SECONDS: '1', HTTP_IDLE_TIMEOUT_SECONDS: '5' });
    try {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const port = (t.app.server.address() as { port: number }).port;

      // Headers trickled one byte at a time, never finished.
      const stalled = await within(
        new Promise<{ answer: string; ms: number }>((resolve) => {
          const started = Date.now();
          const socket = net.connect(port, '127.0.0.1');
          let answer = '';
          const header = 'GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ';
          let index = 0;
          const timer = setInterval(() => {
            if (!socket.destroyed) socket.write(header[index++ % header.length]!);
          }, 200);
          socket.on('data', (chunk) => {
            answer += chunk.toString();
          });
          socket.on('error', () => {});
          socket.on('close', () => {
            clearInterval(timer);
            resolve({ answer, ms: Date.now() - started });
          });
        }),
        PATIENCE_MS,
        'trickled headers',
      );
      expect(stalled.answer).toMatch(/^HTTP\/1\.1 408/);

      // A body that arrives slowly but steadily, well past the headers' limit, is served.
      const body = JSON.stringify({ email: 'slow@example.com' });
      const slowBody = await within(
        new Promise<string>((resolve, reject) => {
          const socket = net.connect(port, '127.0.0.1');
          let answer = '';
          socket.on('connect', async () => {
            socket.write(
              `POST /api/forgot-password HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
            );
            for (const character of body) {
              socket.write(character);
              await new Promise((resolveWrite) => setTimeout(resolveWrite, 2_500 / body.length));
            }
          });
          socket.on('data', (chunk) => {
            answer += chunk.toString();
          });
          socket.on('error', reject);
          socket.on('end', () => resolve(answer));
        }),
        PATIENCE_MS,
        'slow body',
      );
      // No CSRF token: the point is that the request was read to the end and answered.
      expect(slowBody).toMatch(/^HTTP\/1\.1 403/);
    } finally {
      await t.close();
    }
  });

  it('bounds the whole request generously, for large uploads on slow links', async () => {
    const t = await startTestApp();
    try {
      const server = t.app.server;
      expect(server.requestTimeout).toBe(3_600_000);
      expect(server.headersTimeout).toBe(20_000);
      expect(server.timeout).toBe(60_000);
      expect(server.keepAliveTimeout).toBe(72_000);
      // An ordinary request is untouched by all this.
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const port = (t.app.server.address() as { port: number }).port;
      expect((await rawRequest(port, { method: 'GET', target: '/api/health' })).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});
