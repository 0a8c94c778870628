import { sql } from 'kysely';
import { z } from 'zod';
import type { TRoutesPlugin } from '../../platform/routes';

const ZHealth = z.object({
  status: z.enum(['ok', 'error']),
  db: z.enum(['ok', 'error']),
  queue: z.enum(['ok', 'error']),
});

export const systemRoutes: TRoutesPlugin = async (app, { platform }) => {
  app.get(
    '/health',
    { config: { public: true }, schema: { tags: ['system'], response: { 200: ZHealth, 503: ZHealth } } },
    async (_request, reply) => {
      const ping = () =>
        sql`select 1`
          .execute(platform.db)
          .then(() => true)
          .catch(() => false);
      // A pooled connection the server cut while it was away fails once, then leaves the
      // pool: one more try tells a dead connection from a dead database.
      const isDbUp = (await ping()) || (await ping());
      const isQueueUp = isDbUp && ((await platform.queue.isHealthy()) || (await platform.queue.isHealthy()));
      const health = {
        status: isDbUp && isQueueUp ? ('ok' as const) : ('error' as const),
        db: isDbUp ? ('ok' as const) : ('error' as const),
        queue: isQueueUp ? ('ok' as const) : ('error' as const),
      };
      return reply.code(health.status === 'ok' ? 200 : 503).send(health);
    },
  );
};
