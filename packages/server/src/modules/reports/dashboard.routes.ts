import { Readable } from 'node:stream';
import { dashboardApi } from '@sendwell/contracts';
import { moduleRoutes, userOf } from '../../platform/routes';
import { dashboardContent, exportDeliveryEvents, listDeliveryEvents } from './dashboard.service';

/** The delivery dashboard's calls. */
export const dashboardRoutes = moduleRoutes(['dashboard'], (serve, platform) => {
  serve(dashboardApi.content, async (request) => dashboardContent(platform, userOf(request)));
  serve(dashboardApi.events, async (request) => listDeliveryEvents(platform, userOf(request), request.query));
  serve(dashboardApi.export, async (request, reply) =>
    reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', 'attachment; filename="delivery-events.csv"')
      .send(Readable.from(exportDeliveryEvents(platform, userOf(request), request.query))),
  );
});
