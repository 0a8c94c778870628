import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, seedUser, startTestApp, type TTestApp } from './app';

const TOKEN = 'metrics-token-0123456789abcdef';
let t: TTestApp;
beforeAll(async () => {
  t = await startTestApp({ METRICS_TOKEN: TOKEN });
});
afterAll(async () => t?.close());

describe('GET /api/metrics', () => {
  it('answers 404 without the bearer token, and to a wrong one', async () => {
    expect((await t.app.inject({ url: '/api/metrics' })).statusCode).toBe(404);
    const wrong = await t.app.inject({ url: '/api/metrics', headers: { authorization: 'Bearer nope' } });
    expect(wrong.statusCode).toBe(404);
  });

  it('reports request latency by route pattern, queue depth and realtime sockets', async () => {
    const user = await seedUser(t.platform);
    const agent = createAgent(t.app);
    await agent.signIn(user.email, user.password);
    await agent.get('/api/notifications');
    const response = await t.app.inject({ url: '/api/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.statusCode).toBe(200);
    expect(response.body).toMatch(
      /sendwell_http_requests_total\{method="GET",route="\/api\/notifications",status="200"\} 1/,
    );
    expect(response.body).toMatch(/sendwell_queue_jobs\{queue="notifications.deliver",state="queued"\} \d+/);
    expect(response.body).toContain('sendwell_realtime_connections 0');
  });
});
