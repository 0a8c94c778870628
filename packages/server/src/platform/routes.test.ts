import { defineRoute } from '@sendwell/contracts';
import Fastify from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { routesFor } from './routes';
import { zodResponseSerializer } from './serializer';

const rename = defineRoute({
  method: 'POST',
  path: '/lists/:listId/rename',
  params: z.object({ listId: z.coerce.number().int().positive() }),
  query: z.object({ dryRun: z.coerce.boolean().default(false) }),
  body: z.object({ name: z.string().trim().min(1) }),
  response: z.object({ status: z.literal(true), message: z.string() }),
});

const buildApp = async () => {
  const app = Fastify();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(zodResponseSerializer);
  const seen: { config?: unknown; schema?: unknown }[] = [];
  app.addHook('onRoute', (options) => {
    seen.push({ config: options.config, schema: options.schema });
  });
  await app.register(
    async (api) => {
      const serve = routesFor(api, ['lists']);
      serve(
        rename,
        { config: { rateLimit: { name: 'rename', limit: 1, windowSeconds: 60, per: 'user' } } },
        async (request) => {
          const { listId } = request.params;
          return {
            status: true as const,
            message: `${listId + 1}:${request.body.name}:${request.query.dryRun}`,
            leaked: 1,
          };
        },
      );
    },
    { prefix: '/api' },
  );
  return { app, seen };
};

describe('routesFor', () => {
  it('registers the descriptor’s method and path under the plugin’s prefix, parsing params, query and body by its schemas', async () => {
    const { app } = await buildApp();
    const answer = await app.inject({
      method: 'POST',
      url: '/api/lists/41/rename?dryRun=1',
      payload: { name: '  News ' },
    });
    expect(answer.statusCode).toBe(200);
    // The response schema writes the declared fields only.
    expect(answer.json()).toEqual({ status: true, message: '42:News:true' });
    expect((await app.inject({ method: 'GET', url: '/api/lists/41/rename' })).statusCode).toBe(404);
    await app.close();
  });

  it('refuses what the descriptor’s schemas refuse before the handler runs', async () => {
    const { app } = await buildApp();
    const badParam = await app.inject({ method: 'POST', url: '/api/lists/0/rename', payload: { name: 'a' } });
    const badBody = await app.inject({ method: 'POST', url: '/api/lists/1/rename', payload: { name: ' ' } });
    expect(badParam.statusCode).toBe(400);
    expect(badBody.statusCode).toBe(400);
    await app.close();
  });

  it('keeps the route config (public, csrf, rate limits) and the OpenAPI tags', async () => {
    const { app, seen } = await buildApp();
    expect(seen).toContainEqual(
      expect.objectContaining({
        config: { rateLimit: { name: 'rename', limit: 1, windowSeconds: 60, per: 'user' } },
        schema: expect.objectContaining({ tags: ['lists'], body: rename.body, response: { 200: rename.response } }),
      }),
    );
    await app.close();
  });
});
