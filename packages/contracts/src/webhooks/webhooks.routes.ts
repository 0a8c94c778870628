import { z } from 'zod';
import { ZStatusMessage } from '../http/errors';
import { defineRoute, ZIdParams } from '../http/routes';
import { pageQuery } from '../paging/paging';
import { ZSaveWebhookRequest, ZWebhookDeliveryPage, ZWebhookEndpoint, ZWebhookTestResult } from './webhooks';

const ZSecretResponse = ZStatusMessage.extend({ data: ZWebhookEndpoint, secret: z.string() });

/** Settings → Webhooks (issue 48 §3; paths of ours in the `/settings/…` family). For the signed-in app only. */
export const webhooksApi = {
  list: defineRoute({
    method: 'GET',
    path: '/settings/webhooks',
    response: z.object({ data: z.array(ZWebhookEndpoint) }),
  }),
  /** The address is checked before it is saved (public addresses only); answers the signing secret, once. */
  create: defineRoute({
    method: 'POST',
    path: '/settings/webhooks',
    body: ZSaveWebhookRequest,
    response: ZSecretResponse,
  }),
  update: defineRoute({
    method: 'POST',
    path: '/settings/webhooks/:id',
    params: ZIdParams,
    body: ZSaveWebhookRequest,
    response: ZStatusMessage.extend({ data: ZWebhookEndpoint }),
  }),
  delete: defineRoute({
    method: 'DELETE',
    path: '/settings/webhooks/:id',
    params: ZIdParams,
    response: ZStatusMessage,
  }),
  /** The signing secret again (a state-changing call: it carries the CSRF token). */
  secret: defineRoute({
    method: 'POST',
    path: '/settings/webhooks/:id/secret',
    params: ZIdParams,
    response: ZSecretResponse,
  }),
  /** Sends a `webhook.test` event now and answers what the receiver said. */
  test: defineRoute({
    method: 'POST',
    path: '/settings/webhooks/:id/test',
    params: ZIdParams,
    response: ZWebhookTestResult,
  }),
  /** The log: deliveries, newest first, each with its attempts and answers. */
  deliveries: defineRoute({
    method: 'GET',
    path: '/settings/webhooks/:id/deliveries',
    params: ZIdParams,
    query: pageQuery({ columns: ['created_at'] as const, defaultColumn: 'created_at', defaultOrder: 'desc' }),
    response: ZWebhookDeliveryPage,
  }),
};
