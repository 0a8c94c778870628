import { historyApi } from '@sendwell/contracts';
import { moduleRoutes, sendCsv, userOf } from '../../platform/routes';
import { historyCounts, historyDetails, historyExport, listHistory, sendFigures } from './history.service';

/** The History page's reading calls (its "Send again" and "Edit", and Scheduled Emails, are `send-email`'s). */
export const historyRoutes = moduleRoutes(['history'], (serve, platform) => {
  serve(historyApi.list, async (request) => listHistory(platform, userOf(request), request.query));
  serve(historyApi.counts, async (request) => historyCounts(platform, userOf(request), request.params.id));
  serve(historyApi.figures, async (request) => ({
    data: await sendFigures(platform, userOf(request), request.params.id),
  }));
  serve(historyApi.details, async (request) =>
    historyDetails(platform, userOf(request), request.params.accountId, request.params.id, request.query),
  );
  serve(historyApi.export, async (request, reply) => {
    const { accountId, id } = request.params;
    const rows = historyExport(platform, userOf(request), accountId, id, request.query);
    // The first chunk is read here, so a send that is not the user's answers 404, not a broken download.
    const first = await rows.next();
    return sendCsv(
      reply,
      `history-${id}.csv`,
      (async function* () {
        if (!first.done) yield first.value;
        yield* rows;
      })(),
    );
  });
});
