import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { TQueue } from './queue';
import type { TRealtimeHub } from './realtime';

export type TMetrics = { registry: Registry };

/**
 * Prometheus metrics of one web process: request latency by route, job queue depth per
 * queue (read from PostgreSQL at scrape time, so any web process reports the whole
 * queue), open realtime sockets, and Node's own process figures.
 */
export const registerMetrics = (app: FastifyInstance, { queue, hub }: { queue: TQueue; hub: TRealtimeHub }) => {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'sendwell_' });

  const requestDuration = new Histogram({
    name: 'sendwell_http_request_duration_seconds',
    help: 'HTTP request latency by route',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const requests = new Counter({
    name: 'sendwell_http_requests_total',
    help: 'HTTP requests by route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  new Gauge({
    name: 'sendwell_queue_jobs',
    help: 'Jobs per queue and state (queued = waiting or retrying, active = running)',
    labelNames: ['queue', 'state'] as const,
    registers: [registry],
    collect: async function collect() {
      this.reset();
      for (const result of await queue.boss.getQueues()) {
        this.set({ queue: result.name, state: 'queued' }, result.queuedCount);
        this.set({ queue: result.name, state: 'active' }, result.activeCount);
        this.set({ queue: result.name, state: 'failed' }, result.failedCount);
      }
    },
  });
  new Gauge({
    name: 'sendwell_realtime_connections',
    help: 'Open realtime sockets held by this process',
    registers: [registry],
    collect: function collect() {
      this.set(hub.connectionCount());
    },
  });

  app.addHook('onResponse', async (request, reply) => {
    // The route pattern, not the URL, so ids do not make a label per row.
    const route = request.routeOptions.url ?? 'unmatched';
    const labels = { method: request.method, route, status: String(reply.statusCode) };
    requestDuration.observe(labels, reply.elapsedTime / 1000);
    requests.inc(labels);
  });

  return { registry };
};
