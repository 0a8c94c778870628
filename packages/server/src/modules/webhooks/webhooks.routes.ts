import { WEBHOOK_MESSAGES, webhooksApi } from '@sendwell/contracts';
import { moduleRoutes, perUserLimit, userOf } from '../../platform/routes';
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
export const webhookEndpointRoutes = moduleRoutes(['webhooks'], (serve, platform) => {
  const editLimit = perUserLimit('webhooks', 60);
  // Each test is a request to the outside world made on the user's word.
  const testLimit = perUserLimit('webhook-test', 20);

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
});
