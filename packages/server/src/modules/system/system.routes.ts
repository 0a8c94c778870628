import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { sql } from 'kysely';
import { z } from 'zod';
import type { TPlatform } from '../../platform/context';

const ZHealth = z.object({
  status: z.enum(['ok', 'error']),
  db: z.enum(['ok', 'error']),
  queue: z.enum(['ok', 'error']),
});

export const systemRoutes: FastifyPluginAsyncZod<{ platform: TPlatform }> = async (app, { platform }) => {
  app.get(
    '/health',
    { config: { public: true }, schema: { tags: ['system'], response: { 200: ZHealth, 503: ZHealth } } },
    async (_request, reply) => {
      const isDbUp = await sql`select 1`
        .execute(platform.db)
        .then(() => true)
        .catch(() => false);
      const isQueueUp = isDbUp && (await platform.queue.isHealthy());
      const health = {
        status: isDbUp && isQueueUp ? ('ok' as const) : ('error' as const),
        db: isDbUp ? ('ok' as const) : ('error' as const),
        queue: isQueueUp ? ('ok' as const) : ('error' as const),
      };
      return reply.code(health.status === 'ok' ? 200 : 503).send(health);
    },
  );
};
