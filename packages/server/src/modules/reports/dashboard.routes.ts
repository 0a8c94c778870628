import { Readable } from 'node:stream';
import { dashboardApi } from '@sendwell/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { TPlatform } from '../../platform/context';
import { routesFor, userOf } from '../../platform/routes';
import { dashboardContent, exportDeliveryEvents, listDeliveryEvents } from './dashboard.service';

/** The delivery dashboard's calls. */
export const dashboardRoutes: FastifyPluginAsyncZod<{ platform: TPlatform }> = async (app, { platform }) => {
  const serve = routesFor(app, ['dashboard']);
  serve(dashboardApi.content, async (request) => dashboardContent(platform, userOf(request)));
  serve(dashboardApi.events, async (request) => listDeliveryEvents(platform, userOf(request), request.query));
  serve(dashboardApi.export, async (request, reply) =>
    reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', 'attachment; filename="delivery-events.csv"')
      .send(Readable.from(exportDeliveryEvents(platform, userOf(request), request.query))),
  );
};
