import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { startTestApp } from './app';

describe('GET /api/health', () => {
  it('answers ok when the database and the queue answer', async () => {
    const t = await startTestApp();
    try {
      const response = await t.app.inject({ url: '/api/health' });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ status: 'ok', db: 'ok', queue: 'ok' });
    } finally {
      await t.close();
    }
  });

  it('answers 503 naming the queue when the queue is down', async () => {
    const t = await startTestApp();
    try {
      await t.platform.queue.stop();
      const response = await t.app.inject({ url: '/api/health' });
      expect(response.statusCode).toBe(503);
      expect(response.json()).toEqual({ status: 'error', db: 'ok', queue: 'error' });
    } finally {
      await t.close();
    }
  });

  it('answers 503 naming the database while it refuses connections, and ok again after', async () => {
    const t = await startTestApp();
    const admin = new pg.Client({ connectionString: inject('pgAdminUrl') });
    await admin.connect();
    const database = new URL(t.databaseUrl).pathname.slice(1);
    try {
      // As when PostgreSQL goes away: every connection cut, new ones refused.
      await admin.query(`alter database "${database}" allow_connections false`);
      await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [database]);
      const down = await t.app.inject({ url: '/api/health' });
      expect(down.statusCode).toBe(503);
      expect(down.json()).toEqual({ status: 'error', db: 'error', queue: 'error' });

      await admin.query(`alter database "${database}" allow_connections true`);
      const up = await t.app.inject({ url: '/api/health' });
      expect(up.json()).toMatchObject({ db: 'ok' });
    } finally {
      await admin.query(`alter database "${database}" allow_connections true`);
      await admin.end();
      await t.close();
    }
  });
});
