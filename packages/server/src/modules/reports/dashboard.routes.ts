import { dashboardApi } from '@sendwell/contracts';
import { moduleRoutes, sendCsv, userOf } from '../../platform/routes';
import { dashboardContent, exportDeliveryEvents, listDeliveryEvents } from './dashboard.service';

/** The delivery dashboard's calls. */
export const dashboardRoutes = moduleRoutes(['dashboard'], (serve, platform) => {
  serve(dashboardApi.content, async (request) => dashboardContent(platform, userOf(request)));
  serve(dashboardApi.events, async (request) => listDeliveryEvents(platform, userOf(request), request.query));
  serve(dashboardApi.export, async (request, reply) =>
    sendCsv(reply, 'delivery-events.csv', exportDeliveryEvents(platform, userOf(request), request.query)),
  );
});
