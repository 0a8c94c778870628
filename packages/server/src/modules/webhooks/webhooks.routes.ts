import { WEBHOOK_MESSAGES, webhooksApi } from '@sendwell/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { routesFor, userOf } from '../../platform/routes';
import type { TModuleOptions } from '../module';
import {
  createEndpoint,
  deleteEndpoint,
  listDeliveries,
  listEndpoints,
  revealSecret,
  sendTestEvent,
  updateEndpoint,
} from './webhooks.service';

/** Settings → Webhooks. No scope: a key cannot register URLs or read their log. */
export const webhookEndpointRoutes: FastifyPluginAsyncZod<TModuleOptions> = async (app, { platform }) => {
  const serve = routesFor(app, ['webhooks']);
  const editLimit = { rateLimit: { name: 'webhooks', limit: 60, windowSeconds: 600, per: 'user' as const } };
  // Each test is a request to the outside world made on the user's word.
  const testLimit = { rateLimit: { name: 'webhook-test', limit: 20, windowSeconds: 600, per: 'user' as const } };

  serve(webhooksApi.list, async (request) => ({ data: await listEndpoints(platform, userOf(request)) }));

  serve(webhooksApi.create, { config: editLimit }, async (request) => ({
    status: true,
    message: WEBHOOK_MESSAGES.created,
    ...(await createEndpoint(platform, userOf(request), request.body)),
  }));

  serve(webhooksApi.update, { config: editLimit }, async (request) => ({
    status: true,
    message: WEBHOOK_MESSAGES.saved,
    data: await updateEndpoint(platform, userOf(request), request.params.id, request.body),
  }));

  serve(webhooksApi.delete, { config: editLimit }, async (request) => {
    await deleteEndpoint(platform, userOf(request), request.params.id);
    return { status: true, message: WEBHOOK_MESSAGES.deleted };
  });

  serve(webhooksApi.secret, { config: editLimit }, async (request) => ({
    status: true,
    message: '',
    ...(await revealSecret(platform, userOf(request), request.params.id)),
  }));

  serve(webhooksApi.test, { config: testLimit }, async (request) =>
    sendTestEvent(platform, userOf(request), request.params.id),
  );

  serve(webhooksApi.deliveries, async (request) =>
    listDeliveries(platform, userOf(request), request.params.id, request.query),
  );
};
